import { sseData, splitEvery } from "../support/replay-server.js";

/** An OpenAI-compatible streamed answer in small pieces. */
export function openaiAnswer(text: string, finish = "stop"): { body: Buffer[] } {
  const chunk = (delta: object, finish_reason: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason }] });
  const words = text.split(/(?<= )/);
  const events = [chunk({ role: "assistant", content: "" }), ...words.map((w) => chunk({ content: w })), chunk({}, finish), { choices: [], usage: { prompt_tokens: 9, completion_tokens: words.length } }, "[DONE]"];
  return { body: splitEvery(sseData(events), 7) };
}

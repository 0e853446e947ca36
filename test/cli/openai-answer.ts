import { sseData, splitEvery, type ScriptedResponse } from "../support/replay-server.js";

/** An OpenAI-compatible streamed answer in small pieces. */
export function openaiAnswer(text: string, finish = "stop"): { body: Buffer[] } {
  const chunk = (delta: object, finish_reason: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason }] });
  const words = text.split(/(?<= )/);
  const events = [chunk({ role: "assistant", content: "" }), ...words.map((w) => chunk({ content: w })), chunk({}, finish), { choices: [], usage: { prompt_tokens: 9, completion_tokens: words.length } }, "[DONE]"];
  return { body: splitEvery(sseData(events), 7) };
}

/**
 * An answer whose first words stream and whose end never comes: a turn the test cancels mid-stream, however slow
 * the machine (the connection stays open until awl gives it up).
 */
export function unfinishedAnswer(words: string[]): ScriptedResponse {
  const chunk = (delta: object) => ({ choices: [{ index: 0, delta, finish_reason: null }] });
  const events = [chunk({ role: "assistant", content: "" }), ...words.map((w) => chunk({ content: `${w} ` }))];
  return { body: events.map((event) => sseData([event])), ending: "stall" };
}

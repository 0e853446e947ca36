/** Gemini `finishReason` → awl's normalised stop reason (SPEC §3 rule 5), and what each blocking reason means in words. */
import type { StopReason } from "../../model/message.js";

/** Reasons that mean a filter stopped the answer, with what to tell the user. */
const FILTERED: Readonly<Record<string, string>> = {
  SAFETY: "Gemini's safety filters blocked the answer",
  RECITATION: "Gemini stopped the answer because it was reciting material it was trained on",
  BLOCKLIST: "Gemini stopped the answer because it held a blocked term",
  PROHIBITED_CONTENT: "Gemini stopped the answer for prohibited content",
  SPII: "Gemini stopped the answer because it held sensitive personal information",
  IMAGE_SAFETY: "Gemini's safety filters blocked the image it was making",
  IMAGE_PROHIBITED_CONTENT: "Gemini stopped the image it was making for prohibited content",
  IMAGE_RECITATION: "Gemini stopped the image it was making for reciting material it was trained on",
  LANGUAGE: "Gemini stopped the answer: the language is not supported",
};

/** Reasons for a failed tool call, with what to tell the user. */
const TOOL_FAILURES: Readonly<Record<string, string>> = {
  MALFORMED_FUNCTION_CALL: "the model produced a tool call Gemini could not parse",
  UNEXPECTED_TOOL_CALL: "the model called a tool that was not offered",
  TOO_MANY_TOOL_CALLS: "the model made more tool calls in a row than Gemini allows",
  MISSING_THOUGHT_SIGNATURE: "a tool call in the request lacked the thought signature Gemini requires",
};

export function mapGeminiStopReason(raw: string | undefined, hasToolCalls: boolean): StopReason {
  if (raw === "STOP") return hasToolCalls ? "tool_use" : "end_turn";
  if (raw === "MAX_TOKENS") return "max_tokens";
  if (raw !== undefined && Object.hasOwn(FILTERED, raw)) return "content_filter";
  return "unknown";
}

/** What a finish reason that stopped the answer means, for an answer that came out empty; undefined for others. */
export function describeBlockingFinish(raw: string): string | undefined {
  if (Object.hasOwn(FILTERED, raw)) return FILTERED[raw];
  if (Object.hasOwn(TOOL_FAILURES, raw)) return TOOL_FAILURES[raw];
  return undefined;
}

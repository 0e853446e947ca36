/**
 * Conversations that exercise every rule of both request builders (merging, system messages anywhere, tool ids that
 * Anthropic rewrites, images, errors, thinking of every kind, empty blocks), for the byte-for-byte tests of the
 * cached request bodies. test/fixtures/wire/bodies.json holds the bodies the builders produced for them before the
 * per-message cache existed (recorded once from main at 067fc40): the cache must not change a byte.
 */
import type { Message } from "../../src/model/message.js";
import type { ToolSpec } from "../../src/providers/types.js";

export const WIRE_TOOLS: ToolSpec[] = [
  { name: "read", description: "Read a file.", schema: '{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}' },
  { name: "bash", description: "Run \"a\" command\n(unicode: é ✓).", schema: ' {"type":"object","properties":{"n":{"type":"integer","maximum":12345678901234567890}}} ' },
];

const IMAGE = { media_type: "image/png", data: "iVBORw0KGgo=" };

/** A long mixed conversation; `n` rounds of prompts, tool loops and odd cases. */
export function mixedMessages(n = 6): Message[] {
  const m: Message[] = [{ role: "system", content: [{ type: "text", text: "Be brief." }] }];
  for (let i = 0; i < n; i++) {
    m.push({ role: "user", content: [{ type: "text", text: `Round ${i}: "quotes", \\ backslash, \u2028 separator, emoji 🎉` }] });
    if (i % 3 === 1) m.push({ role: "user", content: [{ type: "text", text: `an unanswered prompt follows ${i}` }, { type: "text", text: "" }] });
    m.push({
      role: "assistant",
      content: [
        { type: "thinking", thinking: `thinking ${i}`, ...(i % 2 === 0 ? { signature: `sig${i}` } : {}) },
        ...(i % 4 === 3 ? [{ type: "thinking" as const, thinking: "", redacted: "opaque==" }] : []),
        { type: "text", text: i % 2 === 0 ? "" : `Calling tools for ${i}.` },
        { type: "tool_use", id: i % 3 === 0 ? `functions.read:${i}` : "call_0", name: "read", input: `{"path":"src/${i}.ts","big":12345678901234567890}` },
        { type: "tool_use", id: i % 5 === 2 ? "" : `toolu_${i}b`, name: "bash", input: i % 2 ? "" : "not json" },
      ],
      stop_reason: "tool_use",
      usage: { input_tokens: 100 + i, output_tokens: 10 },
    });
    m.push({
      role: "user",
      content: [
        { type: "text", text: `typed during the call ${i}` },
        { type: "tool_result", tool_use_id: i % 3 === 0 ? `functions.read:${i}` : "call_0", content: `line 1\nline 2 of ${i}\t"x"`, ...(i % 2 ? { is_error: true } : {}) },
        { type: "tool_result", tool_use_id: i % 5 === 2 ? "" : `toolu_${i}b`, content: i % 4 === 0 ? "" : `out ${i}`, ...(i % 3 === 2 ? { images: [IMAGE] } : {}) },
      ],
    });
    if (i === 2) m.push({ role: "system", content: [{ type: "text", text: "A system note mid-way." }, { type: "text", text: "" }] });
    if (i === 3) m.push({ role: "assistant", content: [{ type: "text", text: "" }] });
    m.push({ role: "assistant", content: [{ type: "text", text: `Done with ${i}.` }], stop_reason: "end_turn" });
  }
  m.push({ role: "user", content: [{ type: "text", text: "last prompt" }] });
  return m;
}

/** A plain tool loop ending in a tool result (the usual shape of a request in a turn). */
export function toolLoopMessages(rounds = 4): Message[] {
  const m: Message[] = [{ role: "user", content: [{ type: "text", text: "fix the test" }] }];
  for (let i = 0; i < rounds; i++) {
    m.push({ role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "read", input: `{"path":"f${i}"}` }], stop_reason: "tool_use" });
    m.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: `contents ${i}` }] });
  }
  return m;
}

export interface WireCase {
  name: string;
  messages(): Message[];
  system?: string;
  tools: ToolSpec[];
  /** OpenAI compat overrides, with the base URL they are resolved for. */
  openai: { baseUrl: string; compat?: Record<string, unknown>; maxTokens?: number };
}

export const WIRE_CASES: WireCase[] = [
  { name: "mixed", messages: () => mixedMessages(), system: "You are awl.", tools: WIRE_TOOLS, openai: { baseUrl: "http://localhost:8080/v1" } },
  { name: "mixed-deepseek", messages: () => mixedMessages(), tools: WIRE_TOOLS, openai: { baseUrl: "https://api.deepseek.com", maxTokens: 4000 } },
  { name: "mixed-developer", messages: () => mixedMessages(), system: "sys", tools: [], openai: { baseUrl: "https://api.openai.com/v1", compat: { systemRole: "developer", includeUsage: false } } },
  { name: "tool-loop", messages: () => toolLoopMessages(), tools: WIRE_TOOLS, openai: { baseUrl: "http://localhost:8080/v1" } },
  { name: "one-prompt", messages: () => [{ role: "user", content: [{ type: "text", text: "hi" }] }], tools: [], openai: { baseUrl: "http://localhost:8080/v1" } },
];

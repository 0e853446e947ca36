/** Shared test data for the session tests: a temporary store and messages holding every block type. */
import { join } from "node:path";
import type { Message } from "../../src/model/index.js";
import { SessionStore, type SessionStoreOptions } from "../../src/session/index.js";
import { tempDir } from "../support/temp-dir.js";

export function tempStore(options: SessionStoreOptions = {}): SessionStore {
  return new SessionStore(join(tempDir("awl-sessions-"), "sessions"), options);
}

/** Session `id` as read from `store`; a failed load fails the test. */
export function mustLoad(store: SessionStore, id: string) {
  const loaded = store.load(id);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.value;
}

export const NEW = { cwd: "/home/me/project", provider: "anthropic", model: "claude-x" };

/** A short turn using every block type and field of SPEC §2. */
export function everyBlock(): Message[] {
  return [
    { role: "system", content: [{ type: "text", text: "You are terse." }] },
    { role: "user", content: [{ type: "text", text: "List files, then fail once." }, { type: "image", media_type: "image/gif", data: "R0lGODlhAQABAAAAACw=" }] },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "I should call ls.", signature: "sig-abc==" },
        { type: "thinking", thinking: "", redacted: "opaque-redacted-data" },
        { type: "text", text: "Calling tools." },
        { type: "tool_use", id: "toolu_1", name: "ls", input: '{"path":".","all":true}' },
        { type: "tool_use", id: "toolu_2", name: "broken", input: '{"path": "unterminated' },
        { type: "tool_use", id: "toolu_3", name: "noargs", input: "" },
        { type: "tool_use", id: "toolu_4", name: "strarg", input: '"just a string"' },
      ],
      stop_reason: "tool_use",
      stop_reason_raw: "tool_use",
      usage: { input_tokens: 120, output_tokens: 45, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 },
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_1", content: "a.txt\nb.png" },
        { type: "tool_result", tool_use_id: "toolu_2", content: "invalid JSON input", is_error: true },
        { type: "tool_result", tool_use_id: "toolu_3", content: "", images: [{ media_type: "image/png", data: "iVBORw0KGgo=" }] },
        { type: "tool_result", tool_use_id: "toolu_4", content: "ok" },
      ],
    },
    {
      role: "assistant",
      content: [{ type: "text", text: "Done." }],
      stop_reason: "end_turn",
      stop_reason_raw: "stop",
      usage: { input_tokens: 200, output_tokens: 5 },
    },
  ];
}

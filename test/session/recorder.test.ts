import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { Conversation, type Message } from "../../src/model/index.js";
import type { Provider, StepResult } from "../../src/providers/types.js";
import { SessionRecorder, type SessionError } from "../../src/session/index.js";
import type { ToolCall, ToolOutcome, ToolProgress, ToolSet } from "../../src/tools/types.js";
import { NEW, tempStore } from "./fixtures.js";

class Scripted implements Provider {
  readonly name = "scripted";
  readonly model = "m";
  readonly sent: Message[][] = [];
  constructor(private readonly script: Message[]) {}
  async streamStep(conversation: Conversation): Promise<StepResult> {
    this.sent.push(structuredClone(conversation.messages));
    return { ok: true, message: this.script.shift()! };
  }
}

const tools: ToolSet = {
  definitions: () => [{ name: "count", description: "", schema: '{"type":"object"}', extension: "x", file: "x.lua", parallel: true, timeout_ms: 1000, kinds: ["exec"] }],
  async execute(call: ToolCall, _signal: AbortSignal, onProgress?: (u: ToolProgress) => void): Promise<ToolOutcome> {
    onProgress?.({ kind: "show", state: { counted: 1 } });
    onProgress?.({ kind: "show", state: { counted: 2 } });
    if (call.id === "t2") {
      onProgress?.({ kind: "title", text: "counting" });
      onProgress?.({ kind: "title", text: "counting to 2" });
    }
    if (call.id === "t2") return { status: "result", content: "2", is_error: false, details: { n: 2 }, summary: "two", snapshot: { final: true } };
    return { status: "result", content: "1", is_error: false };
  },
};

/** A UI receiver with state, as a class: the recorder must call its methods on it. */
class Screen {
  lines: string[] = [];
  onMessageStart(): void {
    this.lines.push("start");
  }
  onToolEnd(call: ToolCall): void {
    this.lines.push(`end ${call.id}`);
  }
  onMessageAppended(m: Message): void {
    this.lines.push(`appended ${m.role}`);
  }
}

const turn: Message[] = [
  {
    role: "assistant",
    content: [
      { type: "tool_use", id: "t1", name: "count", input: "{}" },
      { type: "tool_use", id: "t2", name: "count", input: '{ "n": 2 }' },
    ],
    stop_reason: "tool_use",
    usage: { input_tokens: 10, output_tokens: 3 },
  },
  { role: "assistant", content: [{ type: "text", text: "counted" }], stop_reason: "end_turn", usage: { input_tokens: 20, output_tokens: 1 } },
];

describe("SessionRecorder", () => {
  it("saves every message and tool snapshot of a turn, and a resumed session sends the same conversation", async () => {
    const store = tempStore();
    const w = store.create(NEW);
    if (!w.ok) throw new Error(w.error.message);
    const recorder = new SessionRecorder(w.value);
    const conversation = new Conversation();
    const screen = new Screen();
    conversation.addUserMessage("count twice");
    recorder.message(conversation.lastMessage!);
    const result = await new Agent({ provider: new Scripted([...turn]), tools }).runStep(conversation, recorder.wrap(screen));
    expect(result.stop_reason).toBe("end_turn");
    expect(recorder.endTurn().ok).toBe(true);
    expect(screen.lines).toEqual(["appended assistant", "end t1", "end t2", "appended user", "appended assistant"]);
    recorder.close();

    const opened = store.open(w.value.id);
    if (!opened.ok) throw new Error(opened.error.message);
    const { session, writer } = opened.value;
    expect(session.conversation.messages).toEqual(conversation.messages);
    expect(Object.fromEntries(session.snapshots)).toEqual({
      t1: { snapshot: { counted: 2 } },
      t2: { snapshot: { final: true }, title: "counting to 2", details: { n: 2 }, summary: "two" },
    });
    // Continue: the model is sent exactly the saved conversation plus the new prompt.
    const provider = new Scripted([{ role: "assistant", content: [{ type: "text", text: "again" }], stop_reason: "end_turn" }]);
    session.conversation.addUserMessage("and again");
    const resumed = new SessionRecorder(writer);
    resumed.message(session.conversation.lastMessage!);
    await new Agent({ provider, tools }).runStep(session.conversation, resumed.wrap());
    resumed.close();
    expect(provider.sent[0]).toEqual([...conversation.messages, { role: "user", content: [{ type: "text", text: "and again" }] }]);
    const again = store.load(w.value.id);
    expect(again.ok && again.value.conversation.length).toBe(conversation.length + 2);
  });

  it("saves the tokens of attempts that failed, were retried or cancelled as usage entries, counted in the totals", async () => {
    const store = tempStore();
    const w = store.create(NEW);
    if (!w.ok) throw new Error(w.error.message);
    const recorder = new SessionRecorder(w.value);
    const failing: Provider = {
      name: "failing",
      model: "m",
      async streamStep(_c, receiver) {
        const overloaded = { kind: "overloaded" as const, retryable: true, message: "Overloaded" };
        receiver.onRetry?.({ error: { ...overloaded, usage: { input_tokens: 100, output_tokens: 2 } }, attempt: 1, max_retries: 3, delay_ms: 0 });
        receiver.onRetry?.({ error: { ...overloaded, usage: { input_tokens: 0, output_tokens: 0 } }, attempt: 2, max_retries: 3, delay_ms: 0 });
        receiver.onRetry?.({ error: overloaded, attempt: 3, max_retries: 3, delay_ms: 0 });
        const error = { kind: "aborted" as const, retryable: false, message: "cancelled", usage: { input_tokens: 50, output_tokens: 5, cache_read_input_tokens: 40 } };
        receiver.onError?.(error);
        return { ok: false, error };
      },
    };
    const conversation = new Conversation();
    conversation.addUserMessage("hi");
    recorder.message(conversation.lastMessage!);
    const seen: string[] = [];
    const result = await new Agent({ provider: failing }).runStep(conversation, recorder.wrap({ onRetry: (n) => seen.push(`retry ${n.attempt}`), onError: (e) => seen.push(e.kind) }));
    expect(result.stop_reason).toBe("cancelled");
    expect(seen).toEqual(["retry 1", "retry 2", "retry 3", "aborted"]); // passed on to the UI
    recorder.close();
    const lines = readFileSync(w.value.path, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.type === "usage")).toMatchObject([
      { reason: "retry", usage: { input_tokens: 100, output_tokens: 2 } },
      { reason: "cancelled", usage: { input_tokens: 50, output_tokens: 5, cache_read_input_tokens: 40 } },
    ]);
    const listed = store.list();
    expect(listed.ok && listed.value.sessions[0]!.tokens).toEqual({ input_tokens: 150, output_tokens: 7, cache_read_input_tokens: 40 });
  });

  it("reports a failing write once, and keeps going", () => {
    const store = tempStore();
    const w = store.create(NEW);
    if (!w.ok) throw new Error(w.error.message);
    const errors: SessionError[] = [];
    const recorder = new SessionRecorder(w.value, (e) => errors.push(e));
    w.value.close();
    recorder.message({ role: "user", content: [] });
    recorder.message({ role: "user", content: [] });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.kind).toBe("io");
  });
});

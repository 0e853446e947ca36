import { describe, expect, it } from "vitest";
import { Agent, type TurnReceiver } from "../../../src/agent/agent.js";
import { Conversation } from "../../../src/model/conversation.js";
import { ReplayProvider } from "../../../src/providers/replay/replay-provider.js";
import { parseReplayScript, readReplayScript } from "../../../src/providers/replay/script.js";
import type { ToolSet } from "../../../src/tools/types.js";

const line = (v: unknown) => JSON.stringify(v);

/** Records every receiver call as a string. */
function recorder(): { calls: string[]; receiver: TurnReceiver } {
  const calls: string[] = [];
  const receiver: TurnReceiver = {
    onMessageStart: (role) => calls.push(`start ${role}`),
    onBlockStart: (type, i, meta) => calls.push(`block ${i} ${type}${meta ? ` ${meta.tool_id} ${meta.tool_name}` : ""}`),
    onContentDelta: (i, d) => calls.push(`delta ${i} ${d}`),
    onBlockComplete: (i, b) => calls.push(`complete ${i} ${b.type}`),
    onMessageComplete: (m) => calls.push(`message ${m.stop_reason}`),
    onError: (e) => calls.push(`error ${e.kind}`),
    onToolStart: (c) => calls.push(`tool_start ${c.name} ${c.input}`),
    onToolEnd: (c, o, r) => calls.push(`tool_end ${c.name} ${o.status} ${r.content}`),
  };
  return { calls, receiver };
}

describe("replay script", () => {
  it("reads messages, pacing and error lines", () => {
    const script = parseReplayScript("s.jsonl", [
      line({ awl_replay: 1, chunk: 2, delay_ms: 1 }),
      "",
      line({ role: "assistant", content: [{ type: "text", text: "hi" }], replay: { chunk: 5 } }),
      line({ error: { kind: "rate_limit", message: "slow down", status: 429, retry_after_ms: 1000 } }),
    ].join("\n"));
    expect(script.steps).toEqual([
      { kind: "message", line: 3, pacing: { chunk: 5, delay_ms: 1 }, message: { role: "assistant", content: [{ type: "text", text: "hi" }], stop_reason: "end_turn" } },
      { kind: "error", line: 4, error: { kind: "rate_limit", retryable: true, status: 429, retry_after_ms: 1000, message: "slow down" } },
    ]);
  });

  it("names the file and line of a bad step", () => {
    const bad = (text: string) => {
      try {
        parseReplayScript("s.jsonl", text);
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error("expected an error");
    };
    expect(bad(`${line({ role: "assistant", content: [] })}\n{oops`)).toMatch(/^replay script s\.jsonl:2: not valid JSON/);
    expect(bad(line({ role: "user", content: [] }))).toBe('replay script s.jsonl:1: each scripted message must have role "assistant"');
    expect(bad(line({ role: "assistant", content: [{ type: "text" }] }))).toBe("replay script s.jsonl:1: message.content[0].text: expected a string, got nothing");
    expect(bad(line({ awl_replay: 2 }))).toContain("this awl plays format version 1");
    expect(bad(line({ error: { kind: "nope", message: "x" } }))).toContain('"error" needs "kind"');
    expect(bad(line({ role: "assistant", content: [], replay: { chunk: 0 } }))).toContain('"chunk" must be a whole number ≥ 1');
  });

  it("reports an unreadable file as a config error", () => {
    const read = readReplayScript("/nonexistent/script.jsonl");
    expect(read).toEqual({ ok: false, error: { kind: "config", retryable: false, message: "cannot read the replay script /nonexistent/script.jsonl (ENOENT)" } });
  });
});

describe("ReplayProvider", () => {
  const script = (lines: unknown[]) => parseReplayScript("s.jsonl", lines.map(line).join("\n"));

  it("streams in receiver order with small deltas, never splitting a character", async () => {
    const provider = new ReplayProvider(
      script([
        { awl_replay: 1, chunk: 2 },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "a👋b" },
            { type: "text", text: "xyz" },
            { type: "tool_use", id: "t1", name: "echo", input: { m: 1 } },
          ],
          usage: { input_tokens: 1, output_tokens: 2 },
        },
      ]),
    );
    const { calls, receiver } = recorder();
    const step = await provider.streamStep(new Conversation(), receiver);
    expect(calls).toEqual([
      "start assistant",
      "block 0 thinking", "delta 0 a👋", "delta 0 b", "complete 0 thinking",
      "block 1 text", "delta 1 xy", "delta 1 z", "complete 1 text",
      "block 2 tool_use t1 echo", 'delta 2 {"', 'delta 2 m"', "delta 2 :1", "delta 2 }", "complete 2 tool_use",
      "message tool_use",
    ]);
    expect(step).toMatchObject({ ok: true, message: { stop_reason: "tool_use", usage: { input_tokens: 1, output_tokens: 2 } } });
  });

  it("plays error lines and says clearly when the script runs out", async () => {
    const provider = new ReplayProvider(script([{ error: { kind: "server", status: 500, message: "boom" } }]));
    const { calls, receiver } = recorder();
    expect(await provider.streamStep(new Conversation(), receiver)).toMatchObject({ ok: false, error: { kind: "server", status: 500 } });
    const out = await provider.streamStep(new Conversation(), receiver);
    expect(out).toMatchObject({ ok: false, error: { kind: "config" } });
    if (!out.ok) expect(out.error.message).toBe("the replay script s.jsonl has run out: it scripts 1 model response(s) and the agent asked for another");
    expect(calls).toEqual(["error server", "error config"]);
  });

  it("stops mid-stream when the signal aborts", async () => {
    const provider = new ReplayProvider(script([{ awl_replay: 1, chunk: 1, delay_ms: 5 }, { role: "assistant", content: [{ type: "text", text: "a long answer" }] }]));
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = provider.streamStep(new Conversation(), {
      onContentDelta: (_i, d) => {
        deltas.push(d);
        if (deltas.length === 3) controller.abort();
      },
    }, { signal: controller.signal });
    expect(await pending).toMatchObject({ ok: false, error: { kind: "aborted" } });
    expect(deltas).toEqual(["a", " ", "l"]);
  });

  it("drives the real agent loop through a tool call", async () => {
    const provider = new ReplayProvider(
      script([
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "echo", input: { message: "ping" } }] },
        { role: "assistant", content: [{ type: "text", text: "done" }] },
      ]),
    );
    const tools: ToolSet = {
      definitions: () => [{ name: "echo", description: "Echo", schema: '{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}', extension: "test", file: "x.lua", parallel: true, timeout_ms: 1000, kinds: ["exec"] }],
      execute: async (call) => ({ status: "result", content: `echo: ${JSON.parse(call.input).message}`, is_error: false }),
    };
    const conversation = new Conversation();
    conversation.addUserMessage("go");
    const { calls, receiver } = recorder();
    const result = await new Agent({ provider, tools }).runStep(conversation, receiver);
    expect(result.stop_reason).toBe("end_turn");
    expect(calls).toContain('tool_start echo {"message":"ping"}');
    expect(calls).toContain("tool_end echo result echo: ping");
    expect(conversation.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(conversation.messages[2]!.content).toEqual([{ type: "tool_result", tool_use_id: "t1", content: "echo: ping" }]);
  });
});

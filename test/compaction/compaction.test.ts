/**
 * Compaction through the agent loop, for both wire APIs against the replay server (issue 14 item 3): the request
 * after a compaction is smaller and well-formed, tool pairs intact; a context-length refusal recovered by one
 * compaction and one retry; bad summary replies and a cancelled compaction leave the conversation as it was.
 */
import { describe, expect, it } from "vitest";
import { Agent, type TurnReceiver } from "../../src/agent/agent.js";
import type { CompactionOutcome } from "../../src/agent/context-layer.js";
import { Compactor } from "../../src/compaction/compactor.js";
import { SUMMARY_INSTRUCTIONS, summaryRequest } from "../../src/compaction/summary-prompt.js";
import { summaryMessageText } from "../../src/model/compaction.js";
import { Conversation, toolResult } from "../../src/model/conversation.js";
import type { Message } from "../../src/model/message.js";
import { createProvider } from "../../src/providers/create.js";
import type { Provider } from "../../src/providers/types.js";
import { sseData, sseEvents, sharedReplayServer } from "../support/replay-server.js";

const shared = sharedReplayServer();

type Wire = "openai" | "anthropic";

async function providerFor(wire: Wire): Promise<Provider> {
  return createProvider({
    provider: wire,
    model: wire === "openai" ? "gpt-test" : "claude-test",
    baseUrl: wire === "openai" ? `${shared.server.url}/v1` : shared.server.url,
    apiKey: "sk-test",
    maxRetries: 0,
    stallTimeoutMs: 10_000,
  });
}

/** A streamed text reply in the wire's format, with its usage and stop reason. */
function reply(wire: Wire, text: string, stop: "stop" | "length" = "stop"): { body: string } {
  if (wire === "openai")
    return { body: sseData([{ choices: [{ index: 0, delta: { content: text }, finish_reason: stop }] }, { choices: [], usage: { prompt_tokens: 50, completion_tokens: 5 } }, "[DONE]"]) };
  return {
    body: sseEvents([
      { event: "message_start", data: { type: "message_start", message: { usage: { input_tokens: 50, output_tokens: 1 } } } },
      { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
      ...(text ? [{ event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } } }] : []),
      { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
      { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: stop === "stop" ? "end_turn" : "max_tokens" }, usage: { output_tokens: 5 } } },
      { event: "message_stop", data: { type: "message_stop" } },
    ]),
  };
}

const contextRefusal = (wire: Wire) =>
  wire === "openai"
    ? { status: 400, headers: { "content-type": "application/json" }, body: '{"error":{"message":"This model\'s maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}' }
    : { status: 400, headers: { "content-type": "application/json" }, body: '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}' };

/** Turns with a tool call each (a 20 000-character output), then a new prompt: about 10 000 tokens. */
function history(turns = 2): Conversation {
  const c = new Conversation();
  for (let t = 1; t <= turns; t++) {
    c.addUserMessage(`Turn ${t}: read file ${t}.`);
    c.addAssistantMessage([{ type: "text", text: `Reading ${t}.` }, { type: "tool_use", id: `toolu_${t}`, name: "read", input: `{"path":"f${t}.txt"}` }], { stop_reason: "tool_use" });
    c.addToolResults([toolResult(`toolu_${t}`, `${String(t).repeat(19_990)} end of ${t}`)]);
    c.addAssistantMessage([{ type: "text", text: `File ${t} holds digits.` }], { stop_reason: "end_turn" });
  }
  c.addUserMessage("And now?");
  return c;
}

function run(wire: Wire, conversation: Conversation, window: number, options: { auto?: boolean; signal?: AbortSignal; system?: string } = {}) {
  return (async () => {
    const provider = await providerFor(wire);
    const compactor = new Compactor({ provider: () => provider, contextWindow: () => window, ...(options.auto !== undefined && { auto: options.auto }) });
    const agent = new Agent({ provider, context: compactor, ...(options.system !== undefined && { system: options.system }) });
    const outcomes: CompactionOutcome[] = [];
    const receiver: TurnReceiver = { onCompaction: (o) => outcomes.push(o) };
    const result = await agent.runStep(conversation, receiver, options.signal ? { signal: options.signal } : {});
    return { result, outcomes, compactor };
  })();
}

/** Every tool_use of a request is answered by a result in the next message (SPEC §5), in either wire format. */
function expectPairsIntact(wire: Wire, body: { messages: Array<{ role: string; content: unknown; tool_calls?: Array<{ id: string }>; tool_call_id?: string }> }): void {
  const messages = body.messages;
  messages.forEach((m, i) => {
    if (wire === "openai") {
      for (const call of m.tool_calls ?? []) expect(messages.slice(i + 1).some((n) => n.role === "tool" && n.tool_call_id === call.id)).toBe(true);
      if (m.role === "tool") expect(messages.slice(0, i).some((p) => p.tool_calls?.some((c) => c.id === m.tool_call_id))).toBe(true);
    } else if (Array.isArray(m.content)) {
      for (const block of m.content as Array<{ type: string; id?: string; tool_use_id?: string }>) {
        if (block.type === "tool_use") expect((messages[i + 1]?.content as Array<{ tool_use_id?: string }>).some((b) => b.tool_use_id === block.id)).toBe(true);
        if (block.type === "tool_result") expect((messages[i - 1]?.content as Array<{ id?: string }>).some((b) => b.id === block.tool_use_id)).toBe(true);
      }
    }
  });
}

describe.each(["openai", "anthropic"] as const)("compaction on %s", (wire) => {
  it("past the threshold it prunes the old tool output first: one request, smaller, pairs intact, last turns whole", async () => {
    shared.server.enqueue(reply(wire, "Done."));
    const conversation = history(2);
    const { result, outcomes } = await run(wire, conversation, 8_000); // threshold 6 400 tokens; the history is ~10 300
    expect(result.stop_reason).toBe("end_turn");
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]!.applied).toMatchObject({ reason: "threshold", replaces: 0, pruned: ["toolu_1"] });
    expect(outcomes[0]!.applied!.tokens_after).toBeLessThan(6_400);
    expect(shared.server.requests).toHaveLength(1);
    const sent = shared.server.requests[0]!.body;
    expect(sent).not.toContain("1".repeat(1000));
    expect(sent).toContain("2".repeat(19_990)); // the protected turn keeps its output
    expect(sent).toContain("was pruned to save context");
    expectPairsIntact(wire, shared.server.requests[0]!.json());
  });

  it("the system prompt counts towards the threshold: the same history compacts only when a long one is sent too", async () => {
    // The history is ~10 300 tokens and the threshold 11 200: under it alone, over it with ~2 000 tokens of system prompt.
    const system = `You are a careful assistant. ${"Server instructions: use the tools well. ".repeat(200)}`;
    shared.server.enqueue(reply(wire, "Done."), reply(wire, "Done."));
    const alone = await run(wire, history(2), 14_000);
    expect(alone.outcomes).toHaveLength(0);
    expect(shared.server.requests[0]!.body).toContain("1".repeat(1000));
    const withSystem = await run(wire, history(2), 14_000, { system });
    expect(withSystem.outcomes[0]!.applied).toMatchObject({ reason: "threshold", replaces: 0, pruned: ["toolu_1"] });
    const sent = shared.server.requests[1]!.body;
    expect(sent).not.toContain("1".repeat(1000));
    expect(sent).toContain("Server instructions: use the tools well.");
    // The estimate after it includes the system prompt it will send.
    expect(withSystem.outcomes[0]!.applied!.tokens_after).toBeGreaterThan(Math.ceil(system.length / 4));
  });

  it("when pruning is not enough, a model-written summary replaces the older messages, the recent ones kept", async () => {
    shared.server.enqueue(reply(wire, "SUMMARY: the user had files 1 and 2 read; both hold digits."), reply(wire, "Done."));
    const conversation = history(2);
    const { result, outcomes } = await run(wire, conversation, 4_000); // threshold 3 200: turn 2's output alone is ~5 000
    expect(result.stop_reason).toBe("end_turn");
    const applied = outcomes[0]!.applied!;
    expect(applied).toMatchObject({ reason: "threshold", summary: "SUMMARY: the user had files 1 and 2 read; both hold digits." });
    expect(outcomes[0]!.usage).toMatchObject({ input_tokens: 50 });
    // The summary request: a transcript in one user message, no tools, long outputs cut.
    const ask = shared.server.requests[0]!.json();
    expect(ask.tools).toBeUndefined();
    expect(shared.server.requests[0]!.body).toContain("Turn 1: read file 1.");
    expect(shared.server.requests[0]!.body).toContain("characters cut");
    expect(shared.server.requests[0]!.body).toContain(JSON.stringify(SUMMARY_INSTRUCTIONS).slice(1, 40));
    // The next request: the summary, then the kept messages; smaller, well-formed, pairs intact.
    const next = shared.server.requests[1]!;
    expect(next.body.length).toBeLessThan(12_000);
    expect(next.body).toContain(JSON.stringify(summaryMessageText(applied.summary!)).slice(1, -1));
    expect(next.body).toContain("And now?");
    expectPairsIntact(wire, next.json());
    expect(conversation.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: summaryMessageText(applied.summary!) }] });
    expect(conversation.messages.at(-1)!.role).toBe("assistant");
  });

  it("a context-length refusal: one compaction and one retry, which succeeds", async () => {
    shared.server.enqueue(contextRefusal(wire), reply(wire, "Done."));
    const conversation = history(2);
    const { result, outcomes } = await run(wire, conversation, 200_000); // under the threshold by awl's estimate
    expect(result.stop_reason).toBe("end_turn");
    expect(outcomes.map((o) => o.applied?.reason)).toEqual(["overflow"]);
    expect(shared.server.requests).toHaveLength(2);
    expect(shared.server.requests[1]!.body.length).toBeLessThan(shared.server.requests[0]!.body.length);
    expectPairsIntact(wire, shared.server.requests[1]!.json());
  });

  it("a second refusal stands: one retry only, and the error says to compact", async () => {
    shared.server.enqueue(contextRefusal(wire), contextRefusal(wire));
    const { result } = await run(wire, history(2), 200_000);
    expect(result.stop_reason).toBe("error");
    expect(result.error).toMatchObject({ kind: "context_length" });
    expect(shared.server.requests).toHaveLength(2);
  });

  it.each([
    ["empty", "", "stop", "the summary reply was empty"],
    ["cut off", "SUMMARY that goes on and", "length", "the summary reply was cut off"],
    ["too long", "x".repeat(60_000), "stop", "was longer than it may be"],
  ] as const)("a summary reply that is %s is not used: a clear note, the history kept, the turn goes on", async (_name, text, stop, problem) => {
    shared.server.enqueue(reply(wire, text, stop), reply(wire, "Done."));
    const conversation = history(2);
    const before = structuredClone(conversation.messages);
    const { result, outcomes } = await run(wire, conversation, 4_000);
    expect(outcomes[0]!.problem).toContain(problem);
    // What pruning freed is kept; no message was replaced by a summary.
    expect(outcomes[0]!.applied?.summary).toBeUndefined();
    expect(conversation.messages.slice(0, before.length).map((m: Message) => m.role)).toEqual(before.map((m) => m.role));
    expect(result.stop_reason).toBe("end_turn");
  });

  it("a compaction cancelled (Esc) changes nothing and cancels the turn", async () => {
    shared.server.enqueue({ ending: "hang" });
    const conversation = history(2);
    const before = structuredClone(conversation.messages);
    const controller = new AbortController();
    const pending = run(wire, conversation, 4_000, { signal: controller.signal });
    await shared.server.waitForRequests(1);
    controller.abort();
    const { result, outcomes } = await pending;
    expect(result.stop_reason).toBe("cancelled");
    expect(outcomes[0]).toMatchObject({ problem: "the compaction was cancelled" });
    expect(outcomes[0]!.applied).toBeUndefined();
    expect(conversation.messages).toEqual(before);
  });
});

describe("what compaction never does", () => {
  it("never cuts between a tool_use and its result, even mid-turn with one huge output", async () => {
    const c = new Conversation();
    c.addUserMessage("Read the big file, then the small one.");
    c.addAssistantMessage([{ type: "tool_use", id: "call_big", name: "read", input: "{}" }], { stop_reason: "tool_use" });
    c.addToolResults([toolResult("call_big", "B".repeat(30_000))]);
    c.addAssistantMessage([{ type: "tool_use", id: "call_small", name: "read", input: "{}" }], { stop_reason: "tool_use" });
    c.addToolResults([toolResult("call_small", "small")]);
    shared.server.enqueue(reply("openai", "SUMMARY: a big file of Bs was read."), reply("openai", "Done."));
    const { outcomes } = await run("openai", c, 4_000);
    const applied = outcomes[0]!.applied!;
    expect(applied.replaces).toBe(3); // the cut is before the second call: its result stays with it
    expect(c.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expectPairsIntact("openai", shared.server.requests[1]!.json());
  });

  it("below 3 000 tokens nothing is estimated against a window (no server is asked)", async () => {
    let asked = 0;
    const provider = await providerFor("openai");
    const compactor = new Compactor({ provider: () => provider, contextWindow: () => (asked++, 4096) });
    const c = new Conversation();
    c.addUserMessage("hello");
    expect(await compactor.beforeRequest(c, { tools: [] }, new AbortController().signal)).toBeUndefined();
    expect(asked).toBe(0);
  });
});

describe("the summary request's transcript", () => {
  it("marks a failed tool call's result as an error, and not one that worked", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "read both" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "read", input: '{"path":"nope"}' }, { type: "tool_use", id: "c2", name: "read", input: '{"path":"a"}' }] },
      { role: "user", content: [toolResult("c1", "no such file: nope", true), toolResult("c2", "1\tfine", false)] },
    ];
    const text = JSON.stringify(summaryRequest(messages, 10_000).messages.at(-1));
    expect(text).toContain("[result of c1 (error): no such file: nope]");
    expect(text).toContain("[result of c2: 1\\tfine]");
  });
});

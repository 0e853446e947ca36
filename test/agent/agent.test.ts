import { describe, expect, it, vi } from "vitest";
import { Agent, crashReport, PREWARM_AFTER_MS } from "../../src/agent/agent.js";
import { answerUnansweredToolUses } from "../../src/agent/invariant.js";
import { Conversation } from "../../src/model/conversation.js";
import type { ContentBlock } from "../../src/model/blocks.js";
import type { Message } from "../../src/model/message.js";
import { providerError } from "../../src/providers/errors.js";
import type { Provider, StepResult, StreamOptions } from "../../src/providers/types.js";
import type { ToolCall, ToolDefinition, ToolOutcome, ToolSet } from "../../src/tools/types.js";

/** A provider that answers from a script and records what it was sent. */
class ScriptedProvider implements Provider {
  readonly name = "scripted";
  readonly model = "test";
  readonly sent: Message[][] = [];
  constructor(private readonly script: Array<Message | StepResult | ((signal?: AbortSignal) => Promise<StepResult>)>) {}
  async streamStep(conversation: Conversation, _receiver: unknown, options?: StreamOptions): Promise<StepResult> {
    this.sent.push(structuredClone(conversation.messages));
    const next = this.script.shift();
    if (next === undefined) throw new Error("script exhausted");
    if (typeof next === "function") return next(options?.signal);
    if ("ok" in next) return next;
    return { ok: true, message: next };
  }
}

function assistant(...content: ContentBlock[]): Message {
  const hasTools = content.some((b) => b.type === "tool_use");
  return { role: "assistant", content, stop_reason: hasTools ? "tool_use" : "end_turn", usage: { input_tokens: 10, output_tokens: 5 } };
}
const use = (id: string, name: string, input: unknown = {}): ContentBlock => ({
  type: "tool_use", id, name, input: typeof input === "string" ? input : JSON.stringify(input),
});
const text = (t: string): ContentBlock => ({ type: "text", text: t });

const SCHEMA = JSON.stringify({ type: "object", properties: { ms: { type: "integer" } }, additionalProperties: false });

/** A tool host whose tools wait `ms` and report how many calls overlapped. */
class FakeTools implements ToolSet {
  running = 0;
  maxRunning = 0;
  started: string[] = [];
  constructor(
    private readonly defs: Array<Partial<ToolDefinition> & { name: string }>,
    private readonly behave: (call: ToolCall, signal: AbortSignal) => Promise<ToolOutcome>,
  ) {}
  definitions(): ToolDefinition[] {
    return this.defs.map((d) => ({ description: "", schema: SCHEMA, extension: `ext.${d.name}`, file: "x.lua", parallel: true, timeout_ms: 1000, kinds: ["exec"], ...d }));
  }
  async execute(call: ToolCall, signal: AbortSignal): Promise<ToolOutcome> {
    this.started.push(call.id);
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      return await this.behave(call, signal);
    } finally {
      this.running--;
    }
  }
}

const wait = (ms: number, signal?: AbortSignal): Promise<boolean> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), ms);
    signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(false); }, { once: true });
  });

const sleepTool = async (call: ToolCall, signal: AbortSignal): Promise<ToolOutcome> => {
  const { ms } = JSON.parse(call.input) as { ms: number };
  const finished = await wait(ms, signal);
  return finished ? { status: "result", content: `slept ${ms}`, is_error: false } : { status: "cancelled" };
};

function expectEveryToolUseAnswered(conversation: Conversation): void {
  const messages = conversation.messages;
  messages.forEach((m, i) => {
    const ids = m.role === "assistant" ? m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])) : [];
    if (ids.length === 0) return;
    const answers = (messages[i + 1]?.content ?? []).flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : []));
    expect(answers.sort()).toEqual([...ids].sort());
  });
}

describe("Agent.runStep", () => {
  it("ends a turn without tools after one model call", async () => {
    const provider = new ScriptedProvider([assistant(text("hello"))]);
    const conversation = new Conversation();
    conversation.addUserMessage("hi");
    const turn = await new Agent({ provider }).runStep(conversation);
    expect(turn.stop_reason).toBe("end_turn");
    expect(turn.messages).toHaveLength(1);
    expect(conversation.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(turn.usage).toEqual({ input_tokens: 10, output_tokens: 5 });
  });

  it("runs three calls concurrently and answers them in the model's order", async () => {
    const provider = new ScriptedProvider([
      assistant(use("a", "sleep", { ms: 60 }), use("b", "sleep", { ms: 5 }), use("c", "sleep", { ms: 30 })),
      assistant(text("done")),
    ]);
    // Each call waits for its own gate, so the finishing order is the test's, not the machine's timing.
    const gates = new Map<string, () => void>();
    const tools = new FakeTools([{ name: "sleep" }], async (call) => {
      await new Promise<void>((release) => gates.set(call.id, release));
      return { status: "result", content: `slept ${(JSON.parse(call.input) as { ms: number }).ms}`, is_error: false };
    });
    const conversation = new Conversation();
    conversation.addUserMessage("go");
    const ended: string[] = [];
    const step = new Agent({ provider, tools }).runStep(conversation, { onToolEnd: (call) => ended.push(call.id) });
    const until = async (ready: () => boolean): Promise<void> => {
      while (!ready()) await new Promise((r) => setTimeout(r, 1));
    };
    await until(() => gates.size === 3);
    expect(tools.running).toBe(3);
    for (const id of ["b", "c", "a"]) {
      gates.get(id)!();
      await until(() => ended.includes(id));
    }
    const turn = await step;

    expect(turn.stop_reason).toBe("end_turn");
    expect(tools.maxRunning).toBe(3);
    expect(ended).toEqual(["b", "c", "a"]);
    const results = provider.sent[1]!.at(-1)!;
    expect(results.role).toBe("user");
    expect(results.content).toEqual([
      { type: "tool_result", tool_use_id: "a", content: "slept 60" },
      { type: "tool_result", tool_use_id: "b", content: "slept 5" },
      { type: "tool_result", tool_use_id: "c", content: "slept 30" },
    ]);
    expect(turn.usage).toEqual({ input_tokens: 20, output_tokens: 10 });
  });

  it("runs a tool that is not parallel-safe alone", async () => {
    const provider = new ScriptedProvider([
      assistant(use("a", "sleep", { ms: 20 }), use("b", "solo", { ms: 20 }), use("c", "sleep", { ms: 20 })),
      assistant(text("ok")),
    ]);
    let overlapWithSolo = false;
    const tools = new FakeTools([{ name: "sleep" }, { name: "solo", parallel: false }], async (call, signal) => {
      if (call.name === "solo" && tools.running > 1) overlapWithSolo = true;
      const result = await sleepTool(call, signal);
      if (call.name === "solo" && tools.running > 1) overlapWithSolo = true;
      return result;
    });
    await new Agent({ provider, tools }).runStep(new Conversation());
    expect(tools.started).toEqual(["a", "b", "c"]);
    expect(overlapWithSolo).toBe(false);
  });

  it("answers an unknown tool, invalid JSON and a schema violation with errors the model can correct", async () => {
    const provider = new ScriptedProvider([
      assistant(use("u", "nope"), use("j", "sleep", "{not json"), use("s", "sleep", { ms: "soon" }), use("ok", "sleep", { ms: 1 })),
      assistant(text("fixed")),
    ]);
    const tools = new FakeTools([{ name: "sleep" }], sleepTool);
    const turn = await new Agent({ provider, tools }).runStep(new Conversation());
    expect(turn.stop_reason).toBe("end_turn");
    const [u, j, s, ok] = provider.sent[1]!.at(-1)!.content as Array<{ content: string; is_error?: boolean }>;
    expect(u).toMatchObject({ is_error: true });
    expect(u!.content).toContain('unknown tool "nope"');
    expect(u!.content).toContain("Available tools: sleep");
    expect(j).toMatchObject({ is_error: true });
    expect(j!.content).toContain("not valid JSON");
    expect(s).toMatchObject({ is_error: true });
    expect(s!.content).toMatch(/invalid input for tool "sleep": \/ms must be integer/);
    expect(ok).toEqual({ type: "tool_result", tool_use_id: "ok", content: "slept 1" });
    expect(tools.started).toEqual(["ok"]);
  });

  it("stops the turn when a tool crashes, answers every call, and the next turn works", async () => {
    const provider = new ScriptedProvider([
      assistant(use("a", "boom"), use("b", "sleep", { ms: 10 })),
      assistant(text("after the crash")),
    ]);
    const tools = new FakeTools([{ name: "sleep" }, { name: "boom" }], async (call, signal) =>
      call.name === "boom"
        ? { status: "crash", extension: "ext.boom", message: "boom.lua:3: attempt to index a nil value", traceback: "stack traceback:\n\tboom.lua:3: in function <boom.lua:1>" }
        : sleepTool(call, signal),
    );
    const conversation = new Conversation();
    conversation.addUserMessage("crash please");
    const agent = new Agent({ provider, tools });
    const turn = await agent.runStep(conversation);

    expect(turn.stop_reason).toBe("tool_crash");
    expect(turn.crashes).toHaveLength(1);
    expect(crashReport(turn.crashes[0]!)).toBe(
      'the "ext.boom" extension crashed: boom.lua:3: attempt to index a nil value\nstack traceback:\n\tboom.lua:3: in function <boom.lua:1>',
    );
    expect(provider.sent).toHaveLength(1);
    const results = conversation.lastMessage!.content;
    expect(results[0]).toMatchObject({ tool_use_id: "a", is_error: true });
    expect(results[1]).toEqual({ type: "tool_result", tool_use_id: "b", content: "slept 10" });
    expectEveryToolUseAnswered(conversation);

    conversation.addUserMessage("and now?");
    expect((await agent.runStep(conversation)).stop_reason).toBe("end_turn");
    expectEveryToolUseAnswered(conversation);
  });

  it("reports a timed-out call as an error result and keeps going", async () => {
    const provider = new ScriptedProvider([assistant(use("t", "sleep", { ms: 1 })), assistant(text("ok"))]);
    const tools = new FakeTools([{ name: "sleep" }], async () => ({ status: "timeout", timeout_ms: 1500 }));
    const turn = await new Agent({ provider, tools }).runStep(new Conversation());
    expect(turn.stop_reason).toBe("end_turn");
    expect(provider.sent[1]!.at(-1)!.content[0]).toEqual({
      type: "tool_result", tool_use_id: "t", content: 'the tool "sleep" timed out after 1.5 s and was stopped', is_error: true,
    });
  });

  it("cancels running tools, answers every call and sends nothing more", async () => {
    const provider = new ScriptedProvider([assistant(use("a", "sleep", { ms: 10_000 }), use("b", "sleep", { ms: 10_000 }))]);
    const tools = new FakeTools([{ name: "sleep" }], sleepTool);
    const controller = new AbortController();
    const conversation = new Conversation();
    const pending = new Agent({ provider, tools }).runStep(conversation, { onToolStart: () => setTimeout(() => controller.abort(), 20) }, { signal: controller.signal });
    const turn = await pending;
    expect(turn.stop_reason).toBe("cancelled");
    expect(provider.sent).toHaveLength(1);
    expect(conversation.lastMessage!.content).toEqual([
      { type: "tool_result", tool_use_id: "a", content: 'the tool "sleep" was cancelled by the user', is_error: true },
      { type: "tool_result", tool_use_id: "b", content: 'the tool "sleep" was cancelled by the user', is_error: true },
    ]);
  });

  it("commits nothing when the stream is cancelled or fails", async () => {
    const aborted: StepResult = { ok: false, error: providerError("aborted", "cancelled") };
    const failed: StepResult = { ok: false, error: providerError("server", "HTTP 500 from the server", { status: 500 }) };
    const provider = new ScriptedProvider([aborted, failed]);
    const conversation = new Conversation();
    conversation.addUserMessage("hi");
    const agent = new Agent({ provider });
    expect((await agent.runStep(conversation)).stop_reason).toBe("cancelled");
    const turn = await agent.runStep(conversation);
    expect(turn.stop_reason).toBe("error");
    expect(turn.error).toMatchObject({ kind: "server", status: 500, retryable: true });
    expect(conversation.messages).toHaveLength(1);
  });

  it("counts in the turn's usage what retried and failed attempts reported before they broke off", async () => {
    const overloaded = { ...providerError("overloaded", "overloaded_error mid-stream"), usage: { input_tokens: 100, output_tokens: 2 } };
    const retriedThenAnswered: Provider = {
      name: "p", model: "m",
      async streamStep(_conversation, receiver) {
        receiver.onRetry?.({ error: overloaded, attempt: 1, max_retries: 3, delay_ms: 0 });
        return { ok: true, message: assistant(text("done")) };
      },
    };
    const conversation = new Conversation();
    conversation.addUserMessage("hi");
    const answered = await new Agent({ provider: retriedThenAnswered }).runStep(conversation);
    expect(answered.usage).toEqual({ input_tokens: 110, output_tokens: 7 });

    const failed = new ScriptedProvider([{ ok: false, error: { ...providerError("truncated", "the stream ended early"), usage: { input_tokens: 50, output_tokens: 1 } } }]);
    const broken = await new Agent({ provider: failed }).runStep(conversation);
    expect(broken.stop_reason).toBe("error");
    expect(broken.usage).toEqual({ input_tokens: 50, output_tokens: 1 });
  });

  it("ends the turn at the step limit with every call answered", async () => {
    const loop = (): Message => assistant(use(`id${Math.random()}`, "sleep", { ms: 1 }));
    const provider = new ScriptedProvider([loop(), loop(), loop(), loop()]);
    const tools = new FakeTools([{ name: "sleep" }], sleepTool);
    const conversation = new Conversation();
    const turn = await new Agent({ provider, tools, maxSteps: 3 }).runStep(conversation);
    expect(turn.stop_reason).toBe("max_steps");
    expect(turn.steps).toBe(3);
    expect(provider.sent).toHaveLength(3);
    expectEveryToolUseAnswered(conversation);
  });

  it("prewarms the tools as soon as a tool_use block starts streaming, and still tells the caller's receiver", async () => {
    const events: string[] = [];
    const provider: Provider = {
      name: "p", model: "m",
      async streamStep(conversation, receiver) {
        const toolTurn = conversation.messages.length === 0;
        receiver.onMessageStart?.("assistant");
        receiver.onBlockStart?.(toolTurn ? "tool_use" : "text", 0, toolTurn ? { tool_id: "a", tool_name: "sleep" } : undefined);
        return { ok: true, message: toolTurn ? assistant(use("a", "sleep", { ms: 1 })) : assistant(text("done")) };
      },
    };
    const tools = new FakeTools([{ name: "sleep" }], async (call, signal) => {
      events.push("execute");
      return sleepTool(call, signal);
    });
    Object.assign(tools, { prewarm: () => events.push("prewarm") });
    await new Agent({ provider, tools }).runStep(new Conversation(), { onBlockStart: (type) => events.push(`block ${type}`) });
    // The second prewarm: before the calls run, the agent waits for the start to be under way.
    expect(events).toEqual(["prewarm", "block tool_use", "prewarm", "execute", "block text"]);
  });

  it("awaits the tools' refresh before every model call, so a tool changed between calls is offered at the next", async () => {
    const offered: string[][] = [];
    const provider: Provider = {
      name: "p", model: "m",
      async streamStep(conversation, _receiver, options) {
        offered.push((options?.tools ?? []).map((t) => t.name));
        const first = conversation.messages.length === 1;
        return { ok: true, message: first ? assistant(use("a", "sleep", { ms: 1 })) : assistant(text("done")) };
      },
    };
    let names = ["sleep"];
    const events: string[] = [];
    const tools = new FakeTools([], async (call, signal) => {
      events.push("execute");
      return sleepTool(call, signal);
    });
    Object.assign(tools, {
      definitions: () => names.map((name) => ({ name, description: "", schema: SCHEMA, extension: "e", file: "x.lua", parallel: true, timeout_ms: 1000 })),
      // A refresh that takes a while and then changes the tools (a reload), and one that fails: neither is skipped.
      refresh: async () => {
        events.push("refresh");
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (events.includes("execute")) names = ["sleep", "new_tool"];
        if (events.filter((e) => e === "refresh").length === 3) throw new Error("must not reach the agent");
      },
    });
    const conversation = new Conversation();
    conversation.addUserMessage("go");
    const result = await new Agent({ provider, tools }).runStep(conversation);
    expect(events).toEqual(["refresh", "execute", "refresh"]);
    expect(offered).toEqual([["sleep"], ["sleep", "new_tool"]]);
    conversation.addUserMessage("again");
    expect((await new Agent({ provider, tools }).runStep(conversation)).stop_reason).toBe("end_turn");
    expect(result.stop_reason).toBe("end_turn");
  });

  it("asks a system prompt function with the tools offered at each call, so its advice follows a change of tools", async () => {
    const systems: (string | undefined)[] = [];
    const provider: Provider = {
      name: "p", model: "m",
      async streamStep(conversation, _receiver, options) {
        systems.push(options?.system);
        return { ok: true, message: conversation.messages.length === 1 ? assistant(use("a", "sleep", { ms: 1 })) : assistant(text("done")) };
      },
    };
    let names = ["sleep"];
    const tools = new FakeTools([], sleepTool);
    Object.assign(tools, {
      definitions: () => names.map((name) => ({ name, description: "", schema: SCHEMA, extension: "e", file: "x.lua", parallel: true, timeout_ms: 1000 })),
      refresh: async () => {
        if (tools.started.length > 0) names = ["bash", "sleep"];
      },
    });
    const conversation = new Conversation();
    conversation.addUserMessage("go");
    await new Agent({ provider, tools, system: (offered) => `tools: ${offered.join(", ")}` }).runStep(conversation);
    expect(systems).toEqual(["tools: sleep", "tools: bash, sleep"]);
  });

  it("prewarms the tools once the request is begun, again when it is slow to answer, never without tools", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "clearImmediate"] });
    try {
      let answer!: (result: StepResult) => void;
      const heard: string[] = [];
      const provider: Provider = {
        name: "p",
        model: "m",
        streamStep: () => {
          heard.push("asked");
          return new Promise((resolve) => (answer = resolve));
        },
      };
      let prewarms = 0; // the "slow" ones
      const tools = new FakeTools([{ name: "sleep" }], () => Promise.resolve({ status: "result", content: "", is_error: false }));
      Object.assign(tools, { prewarm: (why: string) => (why === "slow" ? prewarms++ : heard.push(why)) });
      const agent = new Agent({ provider, tools });

      const slow = agent.runStep(new Conversation());
      await vi.advanceTimersByTimeAsync(PREWARM_AFTER_MS - 1);
      expect(heard).toEqual(["asked", "request"]); // the request first, then its prewarm
      expect(prewarms).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(prewarms).toBe(1);
      answer({ ok: true, message: assistant(text("done")) });
      await slow;

      const quick = agent.runStep(new Conversation());
      await vi.advanceTimersByTimeAsync(PREWARM_AFTER_MS - 1);
      answer({ ok: true, message: assistant(text("done")) });
      await quick;
      await vi.advanceTimersByTimeAsync(PREWARM_AFTER_MS * 10);
      expect(prewarms).toBe(1);

      // No tools offered: nothing to prewarm.
      const none = new Agent({ provider, tools: Object.assign(new FakeTools([], () => Promise.reject(new Error("unused"))), { prewarm: () => prewarms++ }) });
      const bare = none.runStep(new Conversation());
      await vi.advanceTimersByTimeAsync(PREWARM_AFTER_MS * 10);
      answer({ ok: true, message: assistant(text("done")) });
      await bare;
      expect(prewarms).toBe(1);
      expect(heard).toEqual(["asked", "request", "asked", "request", "asked"]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("lets the tools' start get under way (prewarm's promise) before it checks and runs the calls", async () => {
    const events: string[] = [];
    let started!: () => void;
    const provider = new ScriptedProvider([assistant(use("a", "sleep", { ms: 1 })), assistant(text("done"))]);
    const tools = new FakeTools([{ name: "sleep" }], async () => {
      events.push("execute");
      return { status: "result", content: "", is_error: false };
    });
    Object.assign(tools, {
      prewarm: () => {
        events.push("prewarm");
        return new Promise<void>((resolve) => (started = () => {
          events.push("started");
          resolve();
        }));
      },
    });
    const turn = new Agent({ provider, tools }).runStep(new Conversation());
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).not.toContain("execute");
    started();
    await turn;
    expect(events.indexOf("started")).toBeLessThan(events.indexOf("execute"));
  });

  it("offers the tool definitions to the provider", async () => {
    let offered: string[] = [];
    const provider: Provider = {
      name: "p", model: "m",
      async streamStep(_c, _r, options) {
        offered = (options?.tools ?? []).map((t) => `${t.name}:${t.schema}`);
        return { ok: true, message: assistant(text("x")) };
      },
    };
    await new Agent({ provider, tools: new FakeTools([{ name: "sleep" }], sleepTool) }).runStep(new Conversation());
    expect(offered).toEqual([`sleep:${SCHEMA}`]);
  });
});

describe("answerUnansweredToolUses", () => {
  it("inserts results right after the assistant message that asked, before later user text", () => {
    const conversation = new Conversation([
      { role: "user", content: [text("go")] },
      assistant(use("a", "x"), use("b", "x")),
      { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "done" }] },
      assistant(use("c", "x")),
      { role: "user", content: [text("hello again")] },
    ]);
    const added = answerUnansweredToolUses(conversation);
    expect(added.map((r) => r.tool_use_id)).toEqual(["b", "c"]);
    expect(conversation.messages[2]!.content.map((b) => (b.type === "tool_result" ? b.tool_use_id : b.type))).toEqual(["a", "b"]);
    expect(conversation.messages[4]!.content.map((b) => b.type)).toEqual(["tool_result", "text"]);
    expectEveryToolUseAnswered(conversation);
    expect(answerUnansweredToolUses(conversation)).toEqual([]);
  });

  it("appends a results message when the conversation ends with tool calls", () => {
    const conversation = new Conversation([assistant(use("z", "x"))]);
    answerUnansweredToolUses(conversation);
    expect(conversation.messages).toHaveLength(2);
    expect(conversation.lastMessage!.content[0]).toMatchObject({ tool_use_id: "z", is_error: true });
  });
});

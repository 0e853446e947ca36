// The `task` tool through the library (docs/agents.md, "In the library"): an Agent with a SubAgentToolSet beside its
// tools, a provider that answers each conversation by its system prompt. What the CLI tests cannot reach cheaply:
// the token limit, a definition's own model, a deeper nesting limit, an unknown agent.
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentCatalog, AgentDefinition } from "../../src/agents/definitions.js";
import { SubAgentToolSet, type SubAgentOptions } from "../../src/agents/task-tool.js";
import type { ContentBlock } from "../../src/model/blocks.js";
import { Conversation } from "../../src/model/conversation.js";
import type { Message } from "../../src/model/message.js";
import type { Provider, StepResult, StreamOptions } from "../../src/providers/types.js";
import { CompositeToolSet } from "../../src/tools/composite.js";
import type { ToolCall, ToolDefinition, ToolOutcome, ToolSet } from "../../src/tools/types.js";

type Answer = (seen: { system: string; messages: Message[]; tools: string[] }) => Message;

/** Answers each model call with `answer`, given the system prompt, the conversation and the tools offered. */
class RoutedProvider implements Provider {
  readonly name = "scripted";
  readonly calls: { system: string; tools: string[]; model: string }[] = [];
  constructor(
    private readonly answer: Answer,
    readonly model = "parent-model",
  ) {}
  async streamStep(conversation: Conversation, _receiver: unknown, options?: StreamOptions): Promise<StepResult> {
    const seen = { system: options?.system ?? "", messages: structuredClone(conversation.messages), tools: (options?.tools ?? []).map((t) => t.name) };
    this.calls.push({ system: seen.system, tools: seen.tools, model: this.model });
    return { ok: true, message: this.answer(seen) };
  }
}

const assistant = (...content: ContentBlock[]): Message => ({
  role: "assistant",
  content,
  stop_reason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
  usage: { input_tokens: 600, output_tokens: 400 },
});
const use = (id: string, name: string, input: unknown = {}): ContentBlock => ({ type: "tool_use", id, name, input: JSON.stringify(input) });
const text = (t: string): ContentBlock => ({ type: "text", text: t });
const answered = (messages: Message[]): boolean => messages.at(-1)?.content.some((b) => b.type === "tool_result") ?? false;
const resultText = (messages: Message[]): string => {
  const block = messages.at(-1)!.content.find((b) => b.type === "tool_result");
  return block && block.type === "tool_result" ? String(block.content) : "";
};

/** One tool, `look`, answering "looked". */
class LookTools implements ToolSet {
  definitions(): readonly ToolDefinition[] {
    return [{ name: "look", description: "Looks.", schema: '{"type":"object"}', extension: "test", file: "test.lua", parallel: true, timeout_ms: 1000, kinds: ["read"] }];
  }
  async execute(_call: ToolCall): Promise<ToolOutcome> {
    return { status: "result", content: "looked", is_error: false };
  }
}

function definition(name: string, extra: Partial<AgentDefinition> = {}): AgentDefinition {
  return { name, description: `The ${name} agent.`, prompt: `You are ${name.toUpperCase()}.`, source: "user", file: `/defs/${name}.md`, ...extra };
}

function setup(answer: Answer, agents: AgentDefinition[], options: Partial<SubAgentOptions> = {}) {
  const provider = new RoutedProvider(answer);
  const catalog: AgentCatalog = { agents, problems: [] };
  const warnings: string[] = [];
  let agent!: Agent;
  const task = new SubAgentToolSet({
    definitions: async () => catalog,
    provider: () => agent.provider,
    parentTools: () => agent.tools,
    cwd: "/work",
    warn: (t) => warnings.push(t),
    ...options,
  });
  agent = new Agent({ provider, tools: new CompositeToolSet([new LookTools(), task]), system: "You are PARENT." });
  return { agent, provider, warnings };
}

async function run(agent: Agent): Promise<Conversation> {
  const conversation = new Conversation();
  conversation.addUserMessage("go");
  await agent.runStep(conversation);
  return conversation;
}

describe("SubAgentToolSet", () => {
  it("stops a sub-agent at its token limit: its pending calls answered, the parent told", async () => {
    const { agent, provider } = setup(
      ({ system, messages }) => {
        if (system.startsWith("You are PARENT.")) return answered(messages) ? assistant(text("ok")) : assistant(use("t1", "task", { description: "d", prompt: "p", agent: "alpha" }));
        return assistant(use(`l${messages.length}`, "look"));
      },
      [definition("alpha")],
      { maxTokens: 2500 },
    );
    const conversation = await run(agent);
    // 1000 tokens a call: the third call passes 2500, and it asked for a tool: stopped there.
    expect(provider.calls.filter((c) => c.system.startsWith("You are ALPHA."))).toHaveLength(3);
    const parentResult = conversation.messages[2]!.content[0]!;
    expect(parentResult.type === "tool_result" && parentResult.is_error).toBe(true);
    expect(resultText(conversation.messages.slice(0, 3))).toContain('the sub-agent "alpha" was stopped at its token limit (2,500 tokens) before it finished.');
  });

  it("uses a definition's own model through providerFor, and says when there is none", async () => {
    const made: string[] = [];
    const answer: Answer = ({ system, messages }) =>
      system.startsWith("You are PARENT.")
        ? answered(messages)
          ? assistant(text("ok"))
          : assistant(use("t1", "task", { description: "d", prompt: "p", agent: "fast" }), use("t2", "task", { description: "d", prompt: "p", agent: "gone" }))
        : assistant(text("child answer"));
    const child = new RoutedProvider(answer, "fast-model");
    const { agent } = setup(answer, [definition("fast", { model: "fast-model" }), definition("gone", { model: "no-such-model" })], {
      providerFor: async (model) => {
        made.push(model);
        return model === "fast-model" ? child : `no provider settings for "${model}"`;
      },
    });
    const conversation = await run(agent);
    expect(made.sort()).toEqual(["fast-model", "no-such-model"]);
    expect(child.calls).toHaveLength(1);
    const results = conversation.messages[2]!.content.map((b) => (b.type === "tool_result" ? String(b.content) : ""));
    expect(results[0]).toMatch(/^child answer/);
    expect(results[1]).toBe('the agent "gone" (/defs/gone.md) names the model "no-such-model": no provider settings for "no-such-model"');
  });

  it("with max_depth 2 a sub-agent may start one of its own, whose tools have no task", async () => {
    const { agent, provider } = setup(
      ({ system, messages }) => {
        if (system.startsWith("You are PARENT.")) return answered(messages) ? assistant(text("ok")) : assistant(use("t1", "task", { description: "d", prompt: "p", agent: "alpha" }));
        if (system.startsWith("You are ALPHA.")) return answered(messages) ? assistant(text(`alpha got: ${resultText(messages)}`)) : assistant(use("t2", "task", { description: "d", prompt: "q", agent: "beta" }));
        return assistant(text("beta answer"));
      },
      [definition("alpha"), definition("beta")],
      { maxDepth: 2 },
    );
    const conversation = await run(agent);
    expect(provider.calls.find((c) => c.system.startsWith("You are ALPHA."))!.tools).toEqual(["look", "task"]);
    expect(provider.calls.find((c) => c.system.startsWith("You are BETA."))!.tools).toEqual(["look"]);
    expect(resultText(conversation.messages.slice(0, 3))).toMatch(/^alpha got: beta answer/);
  });

  it("answers a call naming no such agent with the agents there are", async () => {
    const { agent } = setup(
      ({ messages }) => (answered(messages) ? assistant(text("ok")) : assistant(use("t1", "task", { description: "d", prompt: "p", agent: "nobody" }))),
      [definition("alpha"), definition("general-purpose")],
    );
    const conversation = await run(agent);
    expect(resultText(conversation.messages.slice(0, 3))).toBe('there is no agent "nobody"; the agents are: alpha, general-purpose');
  });

  it("labels each call a sub-agent makes with its name", async () => {
    const seen: (string | undefined)[] = [];
    const provider = new RoutedProvider(({ system, messages }) =>
      system.startsWith("You are PARENT.")
        ? answered(messages) ? assistant(text("ok")) : assistant(use("t1", "task", { description: "d", prompt: "p", agent: "alpha" }))
        : answered(messages) ? assistant(text("done")) : assistant(use("l1", "look")),
    );
    const look = new LookTools();
    const spy: ToolSet = { definitions: () => look.definitions(), execute: async (call) => (seen.push(call.agent), look.execute(call)) };
    let agent!: Agent;
    const task = new SubAgentToolSet({ definitions: async () => ({ agents: [definition("alpha")], problems: [] }), provider: () => agent.provider, parentTools: () => agent.tools, cwd: "/w" });
    agent = new Agent({ provider, tools: new CompositeToolSet([spy, task]), system: "You are PARENT." });
    await run(agent);
    expect(seen).toEqual(["alpha"]);
  });
});

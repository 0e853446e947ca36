/**
 * The `task` tool (docs/agents.md): the model hands a piece of work to a sub-agent, one of the definitions
 * (definitions.ts) or the built-in general-purpose one. Several `task` calls in one message run at once. A
 * host-side ToolSet placed beside the Lua tools, under the permission layer: it holds the provider, the parent's
 * tools and the sessions, which live on this thread (docs/agents.md says why it is not a Lua extension).
 */
import { DEFAULT_MAX_STEPS } from "../agent/agent.js";
import type { Usage } from "../model/message.js";
import { parseToolInput } from "../model/blocks.js";
import type { Provider } from "../providers/types.js";
import type { SessionStore } from "../session/store.js";
import type { ToolCall, ToolDefinition, ToolOutcome, ToolProgress, ToolSet } from "../tools/types.js";
import { ChildToolSet } from "./child-tools.js";
import { BUILT_IN_AGENT, GENERAL_PURPOSE, resolveTools, type AgentCatalog, type AgentDefinition } from "./definitions.js";

/** The tool's name. */
export const TASK_TOOL = "task";

/** How deep sub-agents may nest unless configured: 1, the main agent's sub-agents start none. */
export const DEFAULT_MAX_DEPTH = 1;

/** Tokens one sub-agent run may spend (input and output of every model call, summed) unless configured. */
export const DEFAULT_SUB_AGENT_TOKENS = 1_000_000;

/** What the `task` tool needs from its host. */
export interface SubAgentOptions {
  /** The definitions in effect (read before the tool is first offered, and again on `reload`). */
  definitions: () => Promise<AgentCatalog>;
  /** The parent's provider now (a `/model` switch counts from the next sub-agent on). */
  provider: () => Provider;
  /** A provider for a definition's own `model`; resolves to an error message when there is none. Absent: such definitions use the parent's model. */
  providerFor?: (model: string) => Promise<Provider | string>;
  /**
   * The tools sub-agents choose from: the parent's ToolSet, permission layer included (a function, as that layer
   * is built around this set). Their calls go through it, so the parent's rules, mode and ask apply.
   */
  parentTools: () => ToolSet | undefined;
  /** The working directory (named in each sub-agent's system prompt, recorded in its side session). */
  cwd: string;
  /** Where side sessions are saved, and the parent session's id at the time of the call. */
  sessions?: { store: SessionStore; parent: () => string | undefined };
  /** Nesting allowed (default {@link DEFAULT_MAX_DEPTH}). */
  maxDepth?: number;
  /** Model calls per sub-agent (default the agent's {@link DEFAULT_MAX_STEPS}). */
  maxSteps?: number;
  /** Tokens per sub-agent (default {@link DEFAULT_SUB_AGENT_TOKENS}). */
  maxTokens?: number;
  /** Each sub-agent's tokens, once it ended (the parent's cost counts them). */
  onUsage?: (usage: Usage, provider: Provider) => void;
  /** Problems worth saying once (a definition naming tools that do not exist, a side session not saved). */
  warn?: (text: string) => void;
}

interface TaskInput {
  description: string;
  prompt: string;
  agent?: string;
}

/** A ToolSet offering the one `task` tool. */
export class SubAgentToolSet implements ToolSet {
  private catalog: AgentCatalog | undefined;
  private loading: Promise<AgentCatalog> | undefined;
  private tool: { agents: AgentDefinition[]; definition: ToolDefinition } | undefined;
  private readonly warned = new Set<string>();

  constructor(
    private readonly options: SubAgentOptions,
    /** 0 for the main agent's tool; a sub-agent's own `task` tool has its depth. */
    private readonly depth = 0,
  ) {}

  /** The definitions in effect (read once, by the first `refresh` or call). */
  async agents(): Promise<AgentCatalog> {
    this.loading ??= this.options.definitions().then((catalog) => (this.catalog = catalog));
    return this.loading;
  }

  /**
   * Reads the definitions again (`/agents`, or a save seen by the interactive mode's watch). A definition whose file
   * no longer reads keeps its previous version (its problem says so).
   */
  async reload(): Promise<AgentCatalog> {
    const previous = this.catalog;
    this.loading = undefined;
    const next = await this.agents();
    for (const problem of next.problems) {
      const old = previous?.agents.find((a) => a.file === problem.file);
      if (!old || next.agents.some((a) => a.name === old.name)) continue;
      next.agents.push(old);
      problem.message += "; its previous version is kept";
    }
    return next;
  }

  /** The agent awaits this before each model call: the definitions are read before the tool is first offered. */
  async refresh(): Promise<void> {
    await this.agents();
  }

  definitions(): readonly ToolDefinition[] {
    // Before the first refresh (a listing at start-up) the tool offers the built-in agent only.
    const agents = this.catalog?.agents ?? [BUILT_IN_AGENT];
    if (this.tool?.agents !== agents) this.tool = { agents, definition: taskDefinition(agents) };
    return [this.tool.definition];
  }

  async execute(call: ToolCall, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome> {
    const input = parseToolInput(call.input) as TaskInput | undefined;
    if (!input || typeof input.prompt !== "string") return failure(`the "task" tool needs a "prompt" (and a "description")`);
    const name = input.agent ?? GENERAL_PURPOSE;
    const { agents } = await this.agents();
    const definition = agents.find((a) => a.name === name);
    if (!definition) return failure(`there is no agent "${name}"; the agents are: ${agents.map((a) => a.name).join(", ")}`);
    const parent = this.options.parentTools();
    if (!parent) return failure("sub-agents need the parent's tools, and this agent has none");
    const provider = await this.providerOf(definition);
    if (typeof provider === "string") return failure(provider);

    const maxDepth = this.options.maxDepth ?? DEFAULT_MAX_DEPTH;
    const nested = this.depth + 1 < maxDepth ? new SubAgentToolSet(this.options, this.depth + 1) : undefined;
    const available = parent.definitions().map((t) => t.name).filter((n) => n !== TASK_TOOL);
    let allowed: Set<string> | undefined;
    if (definition.tools) {
      const resolved = resolveTools(definition.tools, nested ? [...available, TASK_TOOL] : available);
      allowed = resolved.tools;
      if (resolved.unknown.length > 0) this.warnOnce(definition, resolved.unknown);
    }
    const tools = new ChildToolSet(parent, definition.name, allowed, TASK_TOOL, nested && (!allowed || allowed.has(TASK_TOOL)) ? nested : undefined);
    const sessions = this.options.sessions;
    const parentId = sessions?.parent();
    const description = typeof input.description === "string" && input.description.trim() !== "" ? input.description.trim() : "task";
    // The sub-agent's own loop loads with its first run (a turn that starts none never needs it).
    const { runSubAgent } = await import("./sub-agent.js");
    const { outcome, usage } = await runSubAgent(
      {
        definition,
        call,
        prompt: input.prompt,
        description,
        provider,
        tools,
        system: `${definition.prompt}\n\nEnvironment: working directory ${this.options.cwd}; platform ${process.platform}.`,
        maxSteps: this.options.maxSteps ?? DEFAULT_MAX_STEPS,
        maxTokens: this.options.maxTokens ?? DEFAULT_SUB_AGENT_TOKENS,
        ...(sessions && parentId !== undefined && { session: { store: sessions.store, parent: parentId, cwd: this.options.cwd } }),
        ...(onProgress && { onProgress: (text: string) => onProgress({ kind: "title", text }) }),
        ...(this.options.warn && { warn: this.options.warn }),
      },
      signal,
    );
    this.options.onUsage?.(usage, provider);
    return outcome;
  }

  private async providerOf(definition: AgentDefinition): Promise<Provider | string> {
    const parent = this.options.provider();
    if (!definition.model || definition.model === parent.model || !this.options.providerFor) return parent;
    const made = await this.options.providerFor(definition.model);
    return typeof made === "string" ? `the agent "${definition.name}" (${definition.file}) names the model "${definition.model}": ${made}` : made;
  }

  private warnOnce(definition: AgentDefinition, unknown: string[]): void {
    if (this.warned.has(definition.name)) return;
    this.warned.add(definition.name);
    const names = unknown.map((n) => `"${n}"`).join(", ");
    this.options.warn?.(`${definition.file}: the agent "${definition.name}" names tools not available here (none by that name, or denied): ${names}; it runs with the rest`);
  }
}

function failure(content: string): ToolOutcome {
  return { status: "result", content, is_error: true };
}

/**
 * The `task` tool offered to the model: what it does, then each agent's name and description. Kept short: with
 * the built-in agent alone it adds about 560 bytes to every request (SPEC §9's budget holds with it).
 */
function taskDefinition(agents: readonly AgentDefinition[]): ToolDefinition {
  const list = agents.map((a) => `- ${a.name}: ${a.description.replace(/\s+/g, " ")}`).join("\n");
  const description = [
    "Start a sub-agent: a separate conversation with its own tools that does one task and answers with its result. Calls in one message run in parallel. It sees none of this conversation: give it all it needs.",
    "",
    "Agents:",
    list,
  ].join("\n");
  const schema = {
    type: "object",
    properties: {
      description: { type: "string", description: "3-5 words, shown to the user" },
      prompt: { type: "string" },
      // Not an enum: a name that is not there gets the list of those that are (the description lists them too).
      agent: { type: "string", description: "one of the agents below" },
    },
    required: ["description", "prompt"],
  };
  return { name: TASK_TOOL, description, schema: JSON.stringify(schema), extension: "awl.agents", file: "built-in", parallel: true, timeout_ms: 0, kinds: ["read"] };
}

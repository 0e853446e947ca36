/**
 * What a turn needs, shared by the `awl` command's modes (src/cli) and `awl acp`'s sessions (src/acp): the provider,
 * the tools, the agent, the conversation, and the per-turn hooks. Every mode (print, stream-json, interactive, ACP)
 * runs turns through `Runtime.runTurn`, so a hook added in
 * `buildRuntime` (build-runtime.ts: the `--record` recorder, a session recorder) sees every turn.
 */
import { Agent, type TurnReceiver, type TurnResult } from "../agent/agent.js";
import { resolveSettings, type AwlSettings } from "../config/settings.js";
import type { ConfigResult } from "../config/errors.js";
import { Conversation } from "../model/conversation.js";
import type { ContentBlock } from "../model/blocks.js";
import { emptyUsage, type Message } from "../model/message.js";
import type { Hooks, SessionSource } from "../hooks/dispatcher.js";
import type { Provider, ProviderSettings } from "../providers/types.js";
import type { ToolSet } from "../tools/types.js";
import type { PromptContent, TurnOptions } from "../agent-session/agent-session.js";
import type { OpenedTools } from "./chat-tools.js";
import type { RunOptions } from "./run-options.js";
import { createProvider } from "./provider.js";
import { unansweredNote } from "./unanswered-note.js";
import { shrinkYoungGeneration } from "../util/young-generation.js";
import type { PermissionToolSet } from "../permissions/tool-set.js";
import type { LuaToolSet } from "../extensions/lua-tool-set.js";
import type { McpToolSet } from "../extensions/mcp/mcp-tool-set.js";
import type { LaterMcp } from "./later-mcp.js";
import type { SubAgentToolSet } from "../agents/task-tool.js";
import type { PlanToolSet } from "../permissions/exit-plan.js";
import type { JobTable } from "../jobs/job-table.js";
import { SessionUsage } from "../usage/session-usage.js";
import type { CompactionOutcome } from "../agent/context-layer.js";
import { Compactor } from "../compaction/compactor.js";
import type { SkillToolSet } from "../skills/skill-tool-set.js";
import type { PromptCommands } from "../prompt-commands/discover-commands.js";
import type { SessionBranching } from "../agent-session/branching.js";

/** Observes turns; every method is optional and may be async. A hook that throws is reported, never fatal. */
export interface TurnHook {
  /** The user's message is already in the conversation; no model call yet. */
  onTurnStart?(prompt: Message, runtime: Runtime): void | Promise<void>;
  /** Each message the agent appends (assistant messages, tool-result messages), as it happens. */
  onMessageAppended?(message: Message, runtime: Runtime): void;
  /** Wraps the turn's receiver to see everything it sees (the session recorder saves tool snapshots so); called after `onTurnStart`. */
  wrapReceiver?(receiver: TurnReceiver): TurnReceiver;
  onTurnEnd?(result: TurnResult, runtime: Runtime): void | Promise<void>;
  /** awl is exiting. */
  close?(): void | Promise<void>;
  /** The saved session this runtime writes to, if the hook keeps one. */
  sessionId?(): string | undefined;
  /** A compaction ran, in a turn or on `/compact` (the session records it). */
  onCompaction?(outcome: CompactionOutcome, runtime: Runtime): void;
}

/** What a runtime is built from: the run's options, and what the caller made already. */
export interface RuntimeOptions extends RunOptions {
  /** Overrides for tests and embedders; built from the settings when absent. */
  provider?: Provider;
  tools?: ToolSet;
  /** The Lua extensions' tools when the caller opened them already (`openChatTools`); opened here otherwise. */
  openedTools?: OpenedTools;
  conversation?: Conversation;
}

export class Runtime {
  readonly hooks: TurnHook[] = [];
  /** The permission layer around the tools, when the run has one (the interactive UI gives it its ask function). */
  permissions: PermissionToolSet | undefined;

  /** The tool hosts behind the agent's ToolSet, for listings (`/extensions`): absent when the caller passed its own tools. */
  hosts: { lua?: LuaToolSet; mcp?: McpToolSet; agents?: SubAgentToolSet } = {};
  /** The MCP servers' set-up when it waits for the interactive prompt to be drawn (later-mcp.ts). */
  laterMcp: LaterMcp | undefined;
  /** The Agent Skills found (docs/skills.md): the `skill` tool and the system prompt's listing. */
  skills: SkillToolSet | undefined;
  /** The Markdown prompt commands found (docs/commands.md). */
  promptCommands: PromptCommands | undefined;
  /** Plan mode's `exit_plan` tool (permissions/exit-plan.ts), when the run has permissions: each mode gives it its review. */
  plan: PlanToolSet | undefined;
  /** Background commands (`bash` with `run_in_background`, src/jobs/), when the std tools run here. */
  jobs: JobTable | undefined;
  /** How this run's last turn ended, and in which conversation (for the note when it got no answer). */
  private lastTurn: { conversation: Conversation; result: TurnResult } | undefined;

  /** Tokens, context use and cost of this conversation (the status line, `/cost` and the JSON outputs read it). */
  readonly usage: SessionUsage;
  /** Compaction (docs/compaction.md): the agent's context layer, and `/compact`. */
  compactor: Compactor | undefined;
  /** Rewind, branches and forks of the saved session (session-branching.ts); absent with `--no-session`. */
  branching: SessionBranching | undefined;
  /** The Lua and command hooks (docs/hooks.md), when any may run. */
  eventHooks: Hooks | undefined;
  /** This process runs one turn, then exits (print mode): what the turn never needed is given up at exit. */
  singleTurn = false;
  /** The conversation whose session_start hooks ran (its session_end runs when it is left or at exit). */
  private startedFor: Conversation | undefined;

  constructor(
    readonly agent: Agent,
    public conversation: Conversation,
    public settings: AwlSettings,
    readonly options: RuntimeOptions,
    usage?: SessionUsage,
  ) {
    this.usage = usage ?? new SessionUsage(settings.provider);
  }

  /** The id of the session being saved (for `awl -r`), if any. */
  get sessionId(): string | undefined {
    for (const hook of this.hooks) {
      const id = hook.sessionId?.();
      if (id !== undefined) return id;
    }
    return undefined;
  }

  get providerSettings(): ProviderSettings {
    return this.settings.provider;
  }

  /**
   * Adds the user's prompt (text or content blocks) and runs one agent turn; `receiver` renders it. Never throws. When the previous turn
   * got no answer, the prompt starts with a note saying so (unanswered-note.ts).
   */
  async runTurn(text: PromptContent, receiver: TurnReceiver, signal?: AbortSignal, options: TurnOptions = {}): Promise<{ prompt: Message; result: TurnResult }> {
    if (options.model === undefined || options.model === this.agent.provider.model) return this.runOneTurn(text, receiver, signal);
    // A prompt command's `model`: this turn only (its cost priced as that model's), then the session's again.
    const session = { model: this.agent.provider.model, provider: this.settings.provider.provider };
    const switched = await this.switchModel(options.model, session.provider);
    if (!switched.ok) this.options.warn(`awl: the turn runs on ${session.model}: ${switched.error.message}`);
    try {
      return await this.runOneTurn(text, receiver, signal);
    } finally {
      if (switched.ok) await this.switchModel(session.model, session.provider);
    }
  }

  private async runOneTurn(text: PromptContent, receiver: TurnReceiver, signal?: AbortSignal): Promise<{ prompt: Message; result: TurnResult }> {
    // A prompt left without an answer (tool results already say what happened to their calls).
    const last = this.conversation.lastMessage;
    const unanswered = last?.role === "user" && last.content.some((b) => b.type === "text");
    const content: ContentBlock[] = typeof text === "string" ? [{ type: "text", text }] : [...text];
    const ended = this.lastTurn?.conversation === this.conversation ? this.lastTurn.result : undefined;
    const turnSignal = signal ?? new AbortController().signal;
    if (this.eventHooks) {
      const { promptThroughHooks } = await import("../hooks/turn.js");
      const hooked = await promptThroughHooks(this.eventHooks, content, await this.sessionSource(), turnSignal);
      if ("block" in hooked) return this.blockedPrompt(content, hooked.block);
      content.splice(0, content.length, ...hooked.content);
    }
    if (unanswered) content.unshift({ type: "text", text: unansweredNote(ended) });
    const prompt = this.conversation.addMessage({ role: "user", content });
    await this.callHooks("onTurnStart", (hook) => hook.onTurnStart?.(prompt, this));
    this.usage.meter.beginTurn();
    const wrapped = this.hooks.reduce((r, hook) => hook.wrapReceiver?.(r) ?? r, this.usage.observe(receiver));
    const observed = withAppendObserver(
      wrapped,
      (message) => {
        for (const hook of this.hooks) this.guard(() => hook.onMessageAppended?.(message, this));
      },
      (outcome) => this.compacted(outcome),
    );
    let result = await this.agent.runStep(this.conversation, observed, signal ? { signal } : {});
    if (this.eventHooks) {
      const { continueThroughHooks } = await import("../hooks/turn.js");
      result = await continueThroughHooks(this.eventHooks, result, (message) => {
        observed.onMessageAppended?.(this.conversation.addMessage(message));
        return this.agent.runStep(this.conversation, observed, signal ? { signal } : {});
      }, turnSignal);
    }
    this.lastTurn = { conversation: this.conversation, result };
    shrinkYoungGeneration();
    await this.callHooks("onTurnEnd", (hook) => hook.onTurnEnd?.(result, this));
    return { prompt, result };
  }

  /**
   * How the conversation of this turn came to run, when its session_start hooks have not run yet: `startup` (new),
   * `resume`, or `fork` (`--fork`); the session it replaced (`/new`, `/resume`) ends first. Undefined: started.
   */
  private async sessionSource(): Promise<SessionSource | undefined> {
    if (this.startedFor === this.conversation) return undefined;
    const before = this.startedFor;
    this.startedFor = this.conversation;
    if (before) await this.eventHooks?.sessionEnd(this.conversation.length === 0 ? "clear" : "resume");
    if (this.conversation.length === 0) return "startup";
    const flags = this.options.cli.flags;
    return !before && (flags.fork || flags["fork-session"]) ? "fork" : "resume";
  }

  /** A prompt a hook blocked: nothing is sent or saved; the user is told why. */
  private blockedPrompt(content: ContentBlock[], reason: string): { prompt: Message; result: TurnResult } {
    this.options.warn(`a hook blocked the prompt: ${reason}`);
    return { prompt: { role: "user", content }, result: { stop_reason: "end_turn", messages: [], usage: emptyUsage(), crashes: [], steps: 0 } };
  }

  /**
   * `/model`: the next turns use another model (and provider); the conversation is kept. The settings are
   * resolved again with the new choice on top, so a new provider gets its own key and base URL, never the
   * previous one's. On failure (e.g. no key for that provider) nothing changes.
   */
  async switchModel(model: string, provider?: string): Promise<ConfigResult<ProviderSettings>> {
    const choice = { model, provider: provider ?? this.settings.provider.provider };
    const made = await this.providerFor(model, choice.provider);
    if (!made.ok) return { ok: false, error: { message: made.error.message, hint: `${made.error.hint}; the previous model stays in use` } };
    this.agent.provider = made.value.provider;
    this.settings = made.value.settings;
    this.usage.switchModel(made.value.settings.provider);
    this.options.sources.choice = choice;
    return { ok: true, value: made.value.settings.provider };
  }

  /**
   * A provider for `model` (of `provider`, default the session's), with its own key and base URL resolved as
   * `/model` would; the session's provider is unchanged. Sub-agents and prompt commands naming a model use it.
   */
  async providerFor(model: string, provider = this.settings.provider.provider): Promise<ConfigResult<{ provider: Provider; settings: AwlSettings }>> {
    const resolved = resolveSettings({ ...this.options.sources, choice: { model, provider } });
    if (!resolved.ok) return resolved;
    const created = await createProvider(resolved.value.provider);
    if (!created.ok) return { ok: false, error: { message: created.error.message, hint: "check the provider's settings (awl config)" } };
    return { ok: true, value: { provider: created.provider, settings: resolved.value } };
  }

  /** `/compact [instructions]`: summarises the conversation now (the last turns kept); undefined without a compactor. */
  async compact(instructions?: string, signal: AbortSignal = new AbortController().signal): Promise<CompactionOutcome | undefined> {
    if (!this.compactor) return undefined;
    const outcome = await this.compactor.compactNow(this.conversation, signal, instructions, this.agent.requestShape());
    this.compacted(outcome);
    return outcome;
  }

  /** Every compaction, in a turn or not: the hooks record it, the meter takes the new size. */
  private compacted(outcome: CompactionOutcome): void {
    if (outcome.applied) this.usage.meter.setContextTokens(outcome.applied.tokens_after);
    for (const hook of this.hooks) this.guard(() => hook.onCompaction?.(outcome, this));
  }

  /**
   * The MCP servers, set up now when their set-up waited for the prompt (`report` then takes the problems it
   * finds); undefined when none is configured.
   */
  async mcpServers(report?: (text: string) => void): Promise<McpToolSet | undefined> {
    return this.laterMcp ? this.laterMcp.begin(report) : this.hosts.mcp;
  }

  async close(): Promise<void> {
    if (this.eventHooks && this.startedFor) await this.eventHooks.sessionEnd("exit");
    await this.callHooks("close", (hook) => hook.close?.());
  }

  private async callHooks(phase: string, call: (hook: TurnHook) => void | Promise<void>): Promise<void> {
    for (const hook of this.hooks) {
      try {
        await call(hook);
      } catch (e) {
        this.options.warn(`a ${phase} hook failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  private guard(call: () => void): void {
    try {
      call();
    } catch (e) {
      this.options.warn(`a turn hook failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** `receiver` as it is, plus `observe` after its own `onMessageAppended` and `onCompacted` after its `onCompaction`. */
function withAppendObserver(receiver: TurnReceiver, observe: (message: Message) => void, onCompacted: (outcome: CompactionOutcome) => void): TurnReceiver {
  return new Proxy(receiver, {
    get(target, property) {
      if (property === "onMessageAppended") {
        return (message: Message) => {
          target.onMessageAppended?.(message);
          observe(message);
        };
      }
      if (property === "onCompaction") {
        return (outcome: CompactionOutcome) => {
          target.onCompaction?.(outcome);
          onCompacted(outcome);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

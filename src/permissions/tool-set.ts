/**
 * Permissions at the agent/tool seam: a ToolSet around another that decides every call before it runs
 * (engine.ts) and asks the user through one injected function when the decision is "ask". Without one (no
 * terminal: print mode, JSON modes, piped stdin) an ask is a deny whose message names the rule or flag that
 * would allow the call; those calls are kept for the JSON output. Tools a rule denies outright, and every tool
 * but the read ones in `plan` mode, are not offered to the model at all.
 *
 * Asks come one at a time (parallel calls that ask wait their turn, while calls that need no ask run).
 */
import { parseToolInput } from "../model/blocks.js";
import type { ToolCall, ToolDefinition, ToolOutcome, ToolProgress, ToolSet } from "../tools/types.js";
import type { Decision, PermissionEngine } from "./engine.js";
import { parseRule, type Rule } from "./rules.js";
import { loadShellParser } from "./command-reading.js";
import { TRUST_FLAG } from "./trust.js";
import { ToolSetLayer } from "../tools/tool-set-layer.js";

/** What the user is asked about. */
export interface AskRequest {
  call: ToolCall;
  tool: ToolDefinition;
  /** The parsed arguments. */
  input: unknown;
  decision: Decision;
  /** Rules the "allow for the session" and "always allow" answers add. */
  rules: string[];
  /** Rules saved in the project's config count (the folder is trusted); false: offer the user's config only. */
  projectRulesCount: boolean;
}

/** The five answers (and Esc). */
export type AskAnswer =
  | { kind: "allow_once" }
  | { kind: "allow_session" }
  | { kind: "allow_always"; scope: "project" | "user" }
  | { kind: "deny"; message?: string }
  /** Esc: deny this call and cancel the turn. */
  | { kind: "cancel" };

/**
 * How awl asks the user (the interactive UI, or an ACP client's `session/request_permission`). Must resolve;
 * a rejection counts as a deny (fail closed). `signal` aborts when the turn is cancelled meanwhile.
 */
export type AskFunction = (request: AskRequest, signal: AbortSignal) => Promise<AskAnswer>;

/** A call denied without asking because nobody could be asked, for the JSON output. */
export interface DeniedCall {
  tool_use_id: string;
  tool: string;
  input: unknown;
  reason: string;
  /** Rules that would have allowed it. */
  allow_with: string[];
}

export interface PermissionToolSetOptions {
  /** Absent: nobody can be asked, so an ask is a deny. */
  ask?: AskFunction;
  /** Saves "always allow" rules to the project or user config; resolves to the rules as saved (with file and line). */
  saveRules?: (rules: readonly string[], scope: "project" | "user") => Promise<Rule[]>;
  /** Told when an ask answered with Esc: the turn must stop. */
  onCancelTurn?: () => void;
  /** Told about a failure to save, e.g. a read-only config file. */
  warn?: (text: string) => void;
  /** The folder is trusted, so rules saved in its config count (default true). */
  projectRulesCount?: boolean;
  /** Told when the user is about to be asked about `call` (Notification hooks); not awaited. */
  onAsk?: (call: ToolCall) => void;
}

export class PermissionToolSet extends ToolSetLayer {
  private offered: { from: readonly ToolDefinition[]; mode: string; rules: number; tools: readonly ToolDefinition[] } | undefined;
  /** The ask being shown, so the next waits for it. */
  private asking: Promise<unknown> = Promise.resolve();
  private readonly denied: DeniedCall[] = [];

  constructor(
    inner: ToolSet,
    readonly engine: PermissionEngine,
    private readonly options: PermissionToolSetOptions = {},
  ) {
    super(inner);
  }

  /** The inner tools the engine offers, the same array until the tools, the mode or the rules change. */
  definitions(): readonly ToolDefinition[] {
    const from = this.inner.definitions();
    const rules = this.engine.list().length;
    const o = this.offered;
    if (o && o.from === from && o.mode === this.engine.mode && o.rules === rules) return o.tools;
    const tools = from.filter((tool) => this.engine.offers(tool));
    this.offered = { from, mode: this.engine.mode, rules, tools };
    return tools;
  }

  /**
   * Gives the layer its way to ask (the interactive UI, an ACP client), and what to do when an answer cancels
   * the turn (Esc). Until then, asks are denies.
   */
  setAsk(ask: AskFunction, onCancelTurn?: () => void): void {
    this.options.ask = ask;
    if (onCancelTurn) this.options.onCancelTurn = onCancelTurn;
  }

  /** The calls denied because nobody could be asked, since the last take; then forgotten. */
  takeDenied(): DeniedCall[] {
    return this.denied.splice(0);
  }

  async execute(call: ToolCall, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome> {
    const tool = this.inner.definitions().find((t) => t.name === call.name);
    // The agent checked the call against the offered tools; one not offered (denied, plan mode) still ends here.
    if (!tool || !this.engine.offers(tool)) return refusal(`permission denied: the tool "${call.name}" is not available${this.engine.mode === "plan" ? " in plan mode (read tools only)" : ""}`);
    const input = parseToolInput(call.input);
    // The engine reads a command with the shell parser, loaded the first time one is checked.
    if (typeof (input as { command?: unknown } | null)?.command === "string") await loadShellParser();
    let decision = this.engine.decide(tool, input);
    if (decision.action === "deny") return refusal(`permission denied: ${decision.reason}`);
    if (decision.action === "ask") {
      const verdict = await this.ask(call, tool, input, decision, signal);
      if ("status" in verdict) return verdict;
      decision = verdict;
    }
    // The tool gets the paths as the engine resolved them (SPEC §13): it opens what was decided on.
    // ...and may reach the host its URL names, now allowed (awl.http checks each host against the rules again).
    const granted = decision.hosts && { granted_hosts: decision.hosts };
    return this.inner.execute(decision.input || granted ? { ...call, ...(decision.input && { input: JSON.stringify(decision.input) }), ...granted } : call, signal, onProgress);
  }

  /**
   * {@link execute}, asking the user even where the rules allow the call (a hook asked for it, saying `reason`); a
   * rule's deny still wins, and without a way to ask it is a deny.
   */
  async executeAsking(call: ToolCall, reason: string, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome> {
    const tool = this.inner.definitions().find((t) => t.name === call.name);
    if (!tool || !this.engine.offers(tool)) return this.execute(call, signal, onProgress);
    const input = parseToolInput(call.input);
    if (typeof (input as { command?: unknown } | null)?.command === "string") await loadShellParser();
    const decision = this.engine.decide(tool, input);
    if (decision.action === "deny") return refusal(`permission denied: ${decision.reason}`);
    const verdict = await this.ask(call, tool, input, decision.action === "ask" ? decision : { ...decision, action: "ask", reason }, signal, true);
    if ("status" in verdict) return verdict;
    return this.inner.execute(verdict.input ? { ...call, input: JSON.stringify(verdict.input) } : call, signal, onProgress);
  }

  /**
   * The decision the call runs under (the one asked about, or a newer one that allows it); otherwise its outcome.
   * `always`: ask even if the rules allow it by now.
   */
  private async ask(call: ToolCall, tool: ToolDefinition, input: unknown, decision: Decision, signal: AbortSignal, always = false): Promise<ToolOutcome | Decision> {
    const ask = this.options.ask;
    if (!ask) {
      this.denied.push({ tool_use_id: call.id, tool: call.name, input, reason: decision.reason, allow_with: decision.allowRules });
      return refusal(headlessDenial(decision));
    }
    // The question waits for the one before it; meanwhile an earlier answer ("allow for the session") or a
    // cancelled turn may have decided this call.
    const turn = this.asking.then(async (): Promise<AskAnswer | ToolOutcome | Decision> => {
      if (signal.aborted) return { status: "cancelled" };
      const again = this.engine.decide(tool, input);
      if (again.action === "allow" && !always) return again;
      if (again.action === "deny") return refusal(`permission denied: ${again.reason}`);
      try {
        this.options.onAsk?.(call);
        return await ask({ call, tool, input, decision, rules: decision.allowRules, projectRulesCount: this.options.projectRulesCount ?? true }, signal);
      } catch {
        return { kind: "deny" };
      }
    });
    this.asking = turn.catch(() => undefined);
    const answer = await turn;
    if ("status" in answer || "action" in answer) return answer;
    switch (answer.kind) {
      case "allow_once":
        return decision;
      case "allow_session":
        this.addRules(decision.allowRules, (text) => parseRule(text, "allow", { kind: "session" }, this.engine.workspace, this.engine.home));
        return decision;
      case "allow_always":
        await this.saveAlways(decision.allowRules, answer.scope);
        return decision;
      case "deny":
        return refusal(answer.message ? `the user denied this call and said: ${answer.message}` : "the user denied this call");
      case "cancel":
        this.options.onCancelTurn?.();
        return { status: "cancelled" };
    }
  }

  private async saveAlways(texts: readonly string[], scope: "project" | "user"): Promise<void> {
    try {
      const saved = (await this.options.saveRules?.(texts, scope)) ?? [];
      for (const rule of saved) this.engine.addRule(rule);
      if (saved.length > 0) return;
    } catch (error) {
      this.options.warn?.(`could not save the rule: ${(error as Error).message}; it holds for this session only`);
    }
    this.addRules(texts, (text) => parseRule(text, "allow", { kind: "session" }, this.engine.workspace, this.engine.home));
  }

  private addRules(texts: readonly string[], parse: (text: string) => ReturnType<typeof parseRule>): void {
    for (const text of texts) {
      const parsed = parse(text);
      if (parsed.ok) this.engine.addRule(parsed.rule);
    }
  }
}

/** The outcomes this layer made itself (a deny, the user's no): the call never ran. */
const refusals = new WeakSet<ToolOutcome>();

/** Whether `outcome` is a refusal of this layer rather than the tool's own result. */
export function isRefusal(outcome: ToolOutcome): boolean {
  return refusals.has(outcome);
}

function refusal(content: string): ToolOutcome {
  const outcome: ToolOutcome = { status: "result", content, is_error: true };
  refusals.add(outcome);
  return outcome;
}

/** The headless deny: why, and the exact rule or flag that would allow the call. */
export function headlessDenial(decision: Decision): string {
  if (decision.allowRules.length === 0) {
    return `permission denied: this call needs approval (${decision.reason}) and awl has no terminal to ask; no rule allows it, only an answer or bypass mode (--dangerously-skip-permissions).`;
  }
  const quoted = decision.allowRules.map((r) => `--allow '${r.replace(/'/g, "'\\''")}'`).join(" ");
  const listed = decision.allowRules.map((r) => JSON.stringify(r)).join(", ");
  return (
    `permission denied: this call needs approval (${decision.reason}) and awl has no terminal to ask. ` +
    `To allow it, run with ${quoted}, or add ${listed} to "permissions.allow" in .awl/config.json or ~/.config/awl/config.json` +
    ` (a project's rules count once the folder is trusted, e.g. with ${TRUST_FLAG}).`
  );
}

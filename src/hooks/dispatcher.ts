/**
 * Hook dispatch (docs/hooks.md): for each point of the agent's life, the Lua handlers (lua-hooks.ts) then the
 * command hooks of the config (command-config.ts, Claude Code's contract), combined into one answer for the caller.
 * A hook that fails is reported (a Lua handler once per kind of failure) and skipped; text a hook gives the model
 * is also shown to the user (`show`), never hidden.
 */
import type { ToolOutcome } from "../tools/types.js";
import type { ProcessSandbox } from "../extensions/lua/types.js";
import { awlToolInput, claudeToolInput, claudeToolName } from "./claude-names.js";
import type { CommandHook } from "./command-config.js";
import type { CommandEvent, LuaEvent } from "./events.js";
import type { LuaHooks } from "./lua-hooks.js";
import { runHookCommand, type CommandRun } from "./run-command.js";
import { commandEntries, luaEntries, type HookEntry } from "./listing.js";

export interface HooksOptions {
  lua?: LuaHooks;
  commands: readonly CommandHook[];
  /** The workspace: command hooks run there, and it is the `cwd` they are told. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The run's API keys, removed from command hooks' environment. */
  secrets: readonly string[];
  /** Variables removed from it by name, and credential variables kept (run-command.ts). */
  withheldEnv?: readonly string[];
  passEnv?: readonly string[];
  sandbox?: ProcessSandbox;
  /** The saved session, for `session_id` and `transcript_path`. */
  session?: () => { id?: string; path?: string };
  /** A hook failed. */
  report: (text: string) => void;
  /** Text a hook gave the model (context, a block reason, a message for one more call): shown to the user too. */
  show: (text: string) => void;
  /** What was wrong with the config's hooks entries (each left out), for the listing. */
  problems?: readonly string[];
}

/** How a session came to run: new, continued, or continued as a copy (`--fork`). */
export type SessionSource = "startup" | "resume" | "fork";

/** What the tool_call hooks decided. */
export type ToolCallVerdict = { kind: "block"; reason: string } | { kind: "run"; input?: Record<string, unknown>; ask?: string };

export class Hooks {
  private readonly lua: LuaHooks | undefined;

  constructor(readonly options: HooksOptions) {
    this.lua = options.lua;
  }

  /** Reports a Lua handler's failure once per `key`. */
  static onceReporter(report: (text: string) => void): (key: string, text: string) => void {
    const seen = new Set<string>();
    return (key, text) => {
      if (seen.has(key)) return;
      seen.add(key);
      report(text);
    };
  }

  /** Before a tool call runs (its input already checked against the schema; `decision`: the permission rules'). */
  async toolCall(call: { id: string; name: string; input: unknown }, decision: { action: string; reason: string }, signal: AbortSignal): Promise<ToolCallVerdict> {
    let input = call.input;
    let rewritten: Record<string, unknown> | undefined;
    let ask: string | undefined;
    let block: string | undefined;
    await this.lua?.each("tool_call", () => ({ id: call.id, name: call.name, input, decision: { action: decision.action, reason: decision.reason } }), signal, (result, hook) => {
      if (result.block) {
        block = result.reason ?? `the "${hook.extension}" extension's hook blocked it`;
        return "stop";
      }
      if (result.input !== undefined) input = rewritten = result.input as Record<string, unknown>;
      if (result.ask) ask = result.reason ?? `the "${hook.extension}" extension's hook asks`;
      return "next";
    });
    if (block !== undefined) return { kind: "block", reason: block };
    for (const { hook, run, json } of await this.commands("PreToolUse", call.name, { tool_name: claudeToolName(call.name), tool_input: claudeToolInput(call.name, input), tool_use_id: call.id }, signal)) {
      if (run.how === "exit" && run.code === 2) return { kind: "block", reason: run.stderr.trim() || `the hook "${hook.command}" blocked it` };
      if (!json) continue;
      const specific = asObject(json.hookSpecificOutput);
      const why = str(specific?.permissionDecisionReason) ?? str(json.reason);
      if (json.continue === false) return { kind: "block", reason: str(json.stopReason) ?? why ?? `the hook "${hook.command}" stopped it` };
      if (specific?.permissionDecision === "deny" || json.decision === "block") return { kind: "block", reason: why ?? `the hook "${hook.command}" denied it` };
      if (specific?.permissionDecision === "ask") ask = why ?? `the hook "${hook.command}" asks`;
      const updated = asObject(specific?.updatedInput);
      if (updated) input = rewritten = awlToolInput(call.name, updated);
    }
    return { kind: "run", ...(rewritten && { input: rewritten }), ...(ask !== undefined && { ask }) };
  }

  /** After a tool call: the result the model gets (Lua handlers chained, then PostToolUse feedback appended). */
  async toolResult(call: { id: string; name: string; input: unknown }, outcome: ToolOutcome, signal: AbortSignal): Promise<ToolOutcome> {
    if (outcome.status !== "result") return outcome;
    let result = outcome;
    await this.lua?.each("tool_result", () => ({ id: call.id, name: call.name, input: call.input, content: result.content, is_error: result.is_error }), signal, (r) => {
      let content = r.content ?? result.content;
      if (r.append !== undefined) content = content === "" ? r.append : `${content}\n${r.append}`;
      result = { ...result, content, is_error: r.is_error ?? result.is_error };
      return "next";
    });
    const feedback: string[] = [];
    const response = { content: result.content, is_error: result.is_error };
    for (const { run, json } of await this.commands("PostToolUse", call.name, { tool_name: claudeToolName(call.name), tool_input: claudeToolInput(call.name, call.input), tool_response: response, tool_use_id: call.id }, signal)) {
      if (run.how === "exit" && run.code === 2 && run.stderr.trim()) feedback.push(run.stderr.trim());
      if (!json) continue;
      if (json.decision === "block" && str(json.reason)) feedback.push(str(json.reason)!);
      const context = str(asObject(json.hookSpecificOutput)?.additionalContext);
      if (context) feedback.push(context);
    }
    if (feedback.length > 0) result = { ...result, content: `${result.content}\n${feedback.map((f) => `PostToolUse hook: ${f}`).join("\n")}` };
    return result;
  }

  /** A prompt the user sent: blocked (with the reason for the user), or the prompt to send and context for the model. */
  async userPrompt(prompt: string, attachments: readonly unknown[], signal: AbortSignal): Promise<{ block?: string; prompt: string; context: string[] }> {
    let text = prompt;
    const context: string[] = [];
    let block: string | undefined;
    await this.lua?.each("user_prompt", () => ({ prompt: text, attachments }), signal, (r, hook) => {
      if (r.block) {
        block = r.reason ?? `the "${hook.extension}" extension's hook blocked the prompt`;
        return "stop";
      }
      if (r.prompt !== undefined) text = r.prompt;
      if (r.context) context.push(r.context);
      return "next";
    });
    if (block !== undefined) return { block, prompt: text, context };
    for (const { hook, run, json } of await this.commands("UserPromptSubmit", undefined, { prompt: text }, signal)) {
      if (run.how === "exit" && run.code === 2) return { block: run.stderr.trim() || `the hook "${hook.command}" blocked the prompt`, prompt: text, context };
      if (json) {
        if (json.decision === "block" || json.continue === false) return { block: str(json.reason) ?? str(json.stopReason) ?? `the hook "${hook.command}" blocked the prompt`, prompt: text, context };
        const added = str(asObject(json.hookSpecificOutput)?.additionalContext);
        if (added) context.push(added);
      } else if (run.how === "exit" && run.code === 0 && run.stdout.trim()) context.push(run.stdout.trim());
    }
    for (const c of context) this.options.show(`hook context: ${c}`);
    return { prompt: text, context };
  }

  /** A session starts (`startup`), goes on (`resume`) or goes on as a copy (`fork`): context for the model. */
  async sessionStart(source: SessionSource, signal: AbortSignal): Promise<string[]> {
    const context: string[] = [];
    await this.lua?.each("session_start", () => ({ source }), signal, (r) => {
      if (r.context) context.push(r.context);
      return "next";
    });
    for (const { run, json } of await this.commands("SessionStart", undefined, { source }, signal)) {
      const added = json ? str(asObject(json.hookSpecificOutput)?.additionalContext) : run.how === "exit" && run.code === 0 ? run.stdout.trim() : undefined;
      if (added) context.push(added);
    }
    for (const c of context) this.options.show(`hook context: ${c}`);
    return context;
  }

  /** Before a model call: transient context (not saved in the session). */
  async beforeRequest(messages: unknown, signal: AbortSignal): Promise<string[]> {
    const context: string[] = [];
    await this.lua?.each("before_request", () => ({ messages }), signal, (r) => {
      if (r.context) context.push(r.context);
      return "next";
    });
    for (const c of context) this.options.show(`hook context (this request only): ${c}`);
    return context;
  }

  /** A turn ended: the message for one more model call, if a hook asks for one (the caller caps how often). */
  async turnEnd(info: { stop_reason: string; usage: unknown; continues: number }, signal: AbortSignal): Promise<string | undefined> {
    let more: string | undefined;
    await this.lua?.each("turn_end", () => info, signal, (r) => {
      if (r.continue !== undefined) more = r.continue;
      return r.continue !== undefined ? "stop" : "next";
    });
    if (more === undefined) {
      for (const { run, json } of await this.commands("Stop", undefined, { stop_hook_active: info.continues > 0 }, signal)) {
        if (run.how === "exit" && run.code === 2 && run.stderr.trim()) more = run.stderr.trim();
        else if (json?.decision === "block" && str(json.reason)) more = str(json.reason);
        if (more !== undefined) break;
      }
    }
    if (more !== undefined) this.options.show(`a hook asks for one more model call: ${more}`);
    return more;
  }

  /** Before a summary is asked for: instructions for it (the Lua handlers'; PreCompact hooks are told, as in Claude Code). */
  async compaction(trigger: "manual" | "auto", instructions: string | undefined, signal: AbortSignal): Promise<string[]> {
    const added: string[] = [];
    await this.lua?.each("compaction", () => ({ trigger, instructions: instructions ?? "" }), signal, (r) => {
      if (r.context) added.push(r.context);
      return "next";
    });
    await this.commands("PreCompact", undefined, { trigger, custom_instructions: instructions ?? "" }, signal);
    for (const a of added) this.options.show(`hook instructions for the summary: ${a}`);
    return added;
  }

  /** The session ends (awl exits). */
  async sessionEnd(reason: string): Promise<void> {
    const signal = new AbortController().signal;
    await this.lua?.each("session_end", () => ({ reason }), signal, () => "next");
    await this.commands("SessionEnd", undefined, { reason }, signal);
  }

  /** awl asks the user about a call of `toolName`; the Notification hooks run beside the question, never holding it. */
  notification(toolName: string): void {
    const message = `awl needs your permission to use ${claudeToolName(toolName)}`;
    if (this.options.commands.some((h) => h.event === "Notification")) void this.commands("Notification", undefined, { message, notification_type: "permission_prompt" }, new AbortController().signal);
  }

  /** Every hook of the run as `/hooks` lists it, and the config entries left out. */
  listing(): { entries: HookEntry[]; problems: readonly string[] } {
    return { entries: [...luaEntries(this.lua?.handlers() ?? []), ...commandEntries(this.options.commands)], problems: this.options.problems ?? [] };
  }

  /** Whether any hook of `event` is configured (callers skip work for none). */
  has(event: LuaEvent | CommandEvent): boolean {
    return (this.lua?.handlers(event as LuaEvent).length ?? 0) > 0 || this.options.commands.some((h) => h.event === event);
  }

  /** Runs the command hooks of `event` that match `toolName`, in order; each with its output, JSON when it printed an object. */
  private async commands(event: CommandEvent, toolName: string | undefined, fields: Record<string, unknown>, signal: AbortSignal): Promise<{ hook: CommandHook; run: CommandRun; json?: Record<string, unknown> }[]> {
    const hooks = this.options.commands.filter((h) => h.event === event && (toolName === undefined || h.matches(toolName)));
    if (hooks.length === 0) return [];
    const session = this.options.session?.() ?? {};
    const input = JSON.stringify({ session_id: session.id ?? "", transcript_path: session.path ?? "", cwd: this.options.cwd, hook_event_name: event, ...fields });
    const out: { hook: CommandHook; run: CommandRun; json?: Record<string, unknown> }[] = [];
    for (const hook of hooks) {
      if (signal.aborted) break;
      const { cwd, env, secrets, withheldEnv, passEnv, sandbox } = this.options;
      const run = await runHookCommand(hook.command, input, { cwd, env, secrets, ...(withheldEnv && { withheldEnv }), ...(passEnv && { passEnv }), timeoutMs: hook.timeoutMs, signal, ...(sandbox && { sandbox }) });
      const where = `the ${event} hook "${hook.command}" (${hook.file}:${hook.line})`;
      if (run.how === "timeout") this.options.report(`${where} ran past its timeout of ${hook.timeoutMs / 1000} s and was stopped with its process group`);
      else if (run.how === "error") this.options.report(`${where} could not run: ${run.detail ?? "unknown error"}`);
      else if (run.how === "exit" && run.code !== 0 && run.code !== 2) this.options.report(`${where} failed with exit code ${run.code}${run.stderr.trim() ? `: ${firstLine(run.stderr)}` : ""}`);
      const json = run.how === "exit" && run.code === 0 ? parseObject(run.stdout) : undefined;
      out.push({ hook, run, ...(json && { json }) });
      if (json?.continue === false && event !== "PreToolUse" && event !== "UserPromptSubmit") break;
    }
    return out;
  }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    return asObject(JSON.parse(trimmed));
  } catch {
    return undefined;
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0]!.slice(0, 300);
}

/**
 * The Lua extensions' event hooks (`awl.on(event, handler, { timeout_ms })`): run in the extensions' workers under
 * the same supervision as tools (a deadline, then the worker is stopped and its slot replaced; a memory cap), in
 * a defined order: project extensions before user ones, then by extension name, then in registration order.
 * What a handler returns is checked against its event's fields; a handler that fails, runs past its deadline or
 * returns what awl cannot use is reported once and skipped (the turn goes on as if it returned nothing).
 */
import type { LuaToolSet } from "../extensions/lua-tool-set.js";
import { compareCodeUnits } from "../tools/registry.js";
import type { ExtensionSource } from "../extensions/discover.js";
import type { LuaToolRegistration } from "../extensions/lua/types.js";
import { DEFAULT_LUA_HOOK_TIMEOUT_MS, RESULT_FIELDS, type LuaEvent, type LuaHookResult } from "./events.js";

/** One registered handler. */
export type LuaHook = LuaToolRegistration & { source: ExtensionSource };

const SOURCE_ORDER: readonly ExtensionSource[] = ["flag", "project", "user", "bundled"];

/** How the chain goes on after one handler's result: `stop` ends it (a block). */
export type ChainStep = "next" | "stop";

export class LuaHooks {
  constructor(
    private readonly lua: LuaToolSet,
    /** Told of a handler's failure; `key` is the same for the same failure of the same handler (report it once). */
    private readonly report: (key: string, text: string) => void,
  ) {}

  /** The handlers of `event` in the order they run. */
  handlers(event?: LuaEvent): LuaHook[] {
    const all = this.lua.hooks().filter((h) => event === undefined || h.hook === event);
    const rank = (h: LuaHook): number => SOURCE_ORDER.indexOf(h.source);
    return all.map((h, i) => ({ h, i })).sort((a, b) => rank(a.h) - rank(b.h) || compareCodeUnits(a.h.extension, b.h.extension) || a.i - b.i).map((x) => x.h);
  }

  /**
   * Runs the handlers of `event` one after another: each gets `payload()` as it is then (a chain: a rewritten input or
   * result is what the next one sees) and `take` gets each checked result. Resolves when the chain ends, at once
   * when `signal` aborts (Esc stops the handler running).
   */
  async each(event: LuaEvent, payload: () => unknown, signal: AbortSignal, take: (result: LuaHookResult, hook: LuaHook) => ChainStep): Promise<void> {
    for (const hook of this.handlers(event)) {
      if (signal.aborted) return;
      const result = await this.call(hook, event, payload(), signal);
      if (result && take(result, hook) === "stop") return;
    }
  }

  /** One handler's checked result, or undefined (nothing to apply: it returned nil, failed, or was stopped). */
  private async call(hook: LuaHook, event: LuaEvent, payload: unknown, signal: AbortSignal): Promise<LuaHookResult | undefined> {
    const timeoutMs = hook.timeout_ms ?? DEFAULT_LUA_HOOK_TIMEOUT_MS;
    const outcome = await this.lua.callHandler(hook.extension, hook.name, JSON.stringify(payload), { signal, timeoutMs });
    const fail = (kind: string, message: string): undefined => {
      this.report(`${hook.extension}/${hook.name}/${kind}`, `the "${hook.extension}" extension's ${event} hook failed: ${message} (${hook.file}:${hook.line})`);
      return undefined;
    };
    switch (outcome.status) {
      case "cancelled":
        return undefined;
      case "timeout":
        return fail("timeout", `it ran past its deadline of ${formatMs(outcome.timeout_ms)} and was stopped`);
      case "crash":
        return fail("crash", outcome.message);
      case "result":
        if (outcome.is_error) return fail("error", outcome.content);
        return this.check(event, outcome.content, fail);
    }
  }

  private check(event: LuaEvent, text: string, fail: (kind: string, message: string) => undefined): LuaHookResult | undefined {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return fail("type", "it returned a value awl cannot read");
    }
    if (value === null || (Array.isArray(value) && value.length === 0)) return undefined;
    const fields = RESULT_FIELDS[event];
    const allowed = fields.length > 0 ? `a ${event} hook returns nil or a table with ${fields.join(", ")}` : `a ${event} hook returns nothing`;
    if (typeof value !== "object" || Array.isArray(value)) return fail("type", `it returned ${describe(value)}; ${allowed}; ignored`);
    const result: LuaHookResult = {};
    for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
      if (!(fields as readonly string[]).includes(key)) return fail(`field:${key}`, `it returned the unknown field \`${key}\`; ${allowed}; ignored`);
      const problem = setField(result, key as keyof LuaHookResult, field);
      if (problem) return fail(`field:${key}`, `its \`${key}\` ${problem}; ignored`);
    }
    return result;
  }
}

/** Sets one field of a result when its type is right; otherwise what is wrong with it. */
function setField(result: LuaHookResult, key: keyof LuaHookResult, value: unknown): string | undefined {
  switch (key) {
    case "block":
    case "ask":
    case "is_error":
      if (typeof value !== "boolean") return `must be true or false, not ${describe(value)}`;
      result[key] = value;
      return undefined;
    case "input":
      if (typeof value !== "object" || value === null || Array.isArray(value)) return `must be a table of the tool's arguments, not ${describe(value)}`;
      result.input = value;
      return undefined;
    case "content":
      if (typeof value === "string") result.content = value;
      else if (Array.isArray(value) && value.every((b) => isTextBlock(b))) result.content = value.map((b) => (b as { text: string }).text).join("\n");
      else return `must be a string or a list of { type = "text", text = "..." } blocks, not ${describe(value)}`;
      return undefined;
    default:
      if (typeof value !== "string") return `must be a string, not ${describe(value)}`;
      result[key] = value;
      return undefined;
  }
}

function isTextBlock(block: unknown): boolean {
  return typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text" && typeof (block as { text?: unknown }).text === "string";
}

function describe(value: unknown): string {
  if (value === null) return "nil";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a table";
  return `a ${typeof value === "number" ? "number" : typeof value} (${JSON.stringify(value)})`;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

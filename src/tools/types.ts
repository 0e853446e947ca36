import type { ImageData } from "../model/blocks.js";
import type { ToolSpec } from "../providers/types.js";

/**
 * What a tool may do, as it declares it (`kinds = { "read" }` in Lua): what permissions decide on. A tool that
 * declares none is `exec`, the most careful assumption.
 */
export type ToolKind = "read" | "write" | "exec" | "network";

/** Every kind, in the order awl lists them. */
export const TOOL_KINDS: readonly ToolKind[] = ["read", "write", "exec", "network"];

/** A registered tool, whatever runtime it lives in. */
export interface ToolDefinition extends ToolSpec {
  /** Owning extension (dotted name), e.g. `std.read`; the registry swaps an extension's tools as a unit. */
  extension: string;
  /** The file that registered it. */
  file: string;
  /** false: the tool must run alone, never beside other calls. */
  parallel: boolean;
  /** Per-tool handler timeout. */
  timeout_ms: number;
  /** What the tool may do (at least one; `["exec"]` when it declared none), in {@link TOOL_KINDS} order. */
  kinds: ToolKind[];
}

/** One call the model asked for. */
export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text from the model. */
  input: string;
  /** The sub-agent that made the call (docs/agents.md); absent for the main conversation's calls. */
  agent?: string;
  /** Hosts the user approved for this call when asked (the permission layer sets it): the tool may reach them. */
  granted_hosts?: readonly string[];
}

/** A live update from a running handler (`ctx:progress`, `ctx:show`, `ctx:title`). */
export type ToolProgress =
  | { kind: "progress"; fraction: number; detail?: string }
  | { kind: "show"; state: unknown }
  | { kind: "title"; text: string };

/**
 * How one call ended. Every path yields exactly one tool_result (SPEC §5 invariant):
 * - `result`: the handler returned (maybe `is_error`, a failure the model can act on);
 * - `crash`: a Lua error: the turn stops after the batch; the model gets an is_error result;
 * - `timeout` / `cancelled`: stopped by awl.
 */
export type ToolOutcome =
  | {
      status: "result";
      content: string;
      is_error: boolean;
      summary?: string;
      details?: unknown;
      images?: ImageData[];
      /** Last `ctx:show` snapshot, persisted so a resumed session re-renders without running the tool. */
      snapshot?: unknown;
      /** The turn ends after this batch, as if the model had ended it (a headless `exit_plan`: the plan is the answer). */
      ends_turn?: boolean;
    }
  | { status: "crash"; extension: string; message: string; traceback: string }
  | { status: "timeout"; timeout_ms: number }
  | { status: "cancelled" };

/**
 * Why the agent asks the tools to start: a request offering them is on its way (`request`: cheap starts only, as
 * most replies need no tool), that request is still unanswered after a while (`slow`: a model at work), or the
 * model is streaming a tool call (`tool_use`).
 */
export type PrewarmReason = "request" | "slow" | "tool_use";

/** What the agent needs from a tool host. */
export interface ToolSet {
  /** Tools to offer the model, in a deterministic order. */
  definitions(): readonly ToolDefinition[];
  /**
   * Optional: a tool call is on its way or may be, so start whatever the tools need to run (e.g. Lua workers)
   * without waiting for it to end; `why` says how likely it is (see {@link PrewarmReason}), and each host decides
   * what is worth starting for it. With `tool_use`, `tool` names the tool being called when it is known: a host
   * that does not have that tool need not start anything for it. May return a promise that settles once that start
   * is under way (e.g. the worker threads exist); never rejects.
   */
  prewarm?(why?: PrewarmReason, tool?: string): void | Promise<void>;
  /**
   * Optional: applies pending changes (extension reloads, MCP `list_changed`, servers that became ready,
   * enable/disable) so that `definitions()` is current. The agent awaits it before every model call (the first of
   * a turn included), never while a tool call runs. Never rejects.
   */
  refresh?(): Promise<void>;
  /**
   * Optional: text the tools' hosts ask to add to the system prompt (each MCP server's `instructions`), as of the
   * last `refresh()`, in an order that does not depend on which host was ready first (so the prompt's bytes, and
   * the provider's prompt cache, stay put). The agent sends it after its own system prompt.
   */
  instructions?(): readonly string[];
  /** Runs one validated call. Never throws. */
  execute(call: ToolCall, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome>;
  /**
   * Optional: draws a tool's block body from a `ctx:show` state (the tool's `render(state, view)`), live or
   * from a saved snapshot; never runs the tool itself, and is time-limited. Resolves to the text (a string or
   * lines), or undefined when the tool is unknown or has no render (the caller shows its fallback text).
   * Rejects with an Error saying what went wrong when the render failed (crash, timeout, bad return value).
   */
  render?(toolName: string, state: unknown, view: ToolRenderView): Promise<string | string[] | undefined>;
}

/** The space a tool block's body may take: `render(state, view)` gets it as `view`. */
export interface ToolRenderView {
  /** Columns. */
  width: number;
  /** Lines, unless `expand`. */
  height: number;
  /** The user asked for the full output. */
  expand: boolean;
}

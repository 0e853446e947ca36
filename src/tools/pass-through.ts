/** What a ToolSet that wraps another one (permissions, hooks, the checkpoints' write barrier) passes on unchanged. */
import type { ToolSet } from "./types.js";

/** The optional members of a ToolSet. */
export type PassedThrough = Pick<ToolSet, "prewarm" | "refresh" | "instructions" | "render">;

/** `inner`'s optional members, bound to it, for a wrapper to expose (`Object.assign(this, passThrough(inner))`); those it lacks stay absent. */
export function passThrough(inner: ToolSet): PassedThrough {
  const out: PassedThrough = {};
  if (inner.prewarm) out.prewarm = (why) => inner.prewarm!(why);
  if (inner.render) out.render = (name, state, view) => inner.render!(name, state, view);
  // MCP servers start, and reloads apply, on the inner set's refresh: a wrapper must pass it on.
  if (inner.refresh) out.refresh = () => inner.refresh!();
  if (inner.instructions) out.instructions = () => inner.instructions!();
  return out;
}

/** Running an extension's slash command (`awl.register_command`, docs/extension-api.md) in the Lua pool. */
import type { ImageData } from "../model/blocks.js";
import type { LuaToolSet } from "./lua-tool-set.js";
import type { LuaCommand } from "./lua/types.js";

/**
 * How a slash command's handler ended: what it returned to print (`ok`), what went wrong (`error`), or why it
 * stopped; `prompt` when it returned one for the model (with files to attach and images).
 */
export interface CommandOutcome {
  outcome: "ok" | "error" | "stopped";
  text: string;
  prompt?: { text: string; files: string[]; images: ImageData[] };
}

/**
 * Runs a slash command's handler with the text after its name: what it returned (`ok`), what went wrong
 * (`error`, naming file and line: a Lua error's message carries them), or why it stopped (`stopped`: Esc, the
 * timeout). Texts come scrubbed of API keys. Never throws.
 */
export async function runSlashCommand(lua: LuaToolSet, command: LuaCommand, args: string, signal: AbortSignal): Promise<CommandOutcome> {
  await lua.loaded().catch(() => undefined);
  if (!lua.commands().some((c) => c.extension === command.extension && c.name === command.name)) {
    return { outcome: "error", text: `the command is gone (its extension ${command.extension} no longer registers it)` };
  }
  const outcome = await lua.callHandler(command.extension, `/${command.name}`, JSON.stringify({ args }), { signal, timeoutMs: lua.defaultTimeoutMs });
  switch (outcome.status) {
    case "result": {
      // A handler's `{ prompt = ..., attachments = ..., images = ... }` (awl.lua's `extras`): a prompt for the model.
      const { prompt, attachments } = outcome as { prompt?: string; attachments?: string[] };
      const send = !outcome.is_error && typeof prompt === "string" ? { prompt: { text: prompt, files: attachments ?? [], images: outcome.images ?? [] } } : {};
      return { outcome: outcome.is_error ? "error" : "ok", text: outcome.content, ...send };
    }
    case "crash":
      return { outcome: "error", text: outcome.message };
    case "timeout":
      return { outcome: "stopped", text: `/${command.name} did not finish within ${outcome.timeout_ms / 1000} s and was stopped` };
    default:
      return { outcome: "stopped", text: `/${command.name} was cancelled` };
  }
}

/**
 * LuaPool: the seed's LuaStatePool. Each slot is a worker thread with its own Lua 5.4 state holding
 * every extension; slots are created lazily up to `maxSlots`, calls beyond that queue.
 * Skeleton: the API is final, the bodies land next.
 */
import type {
  ExtensionLoadError,
  LuaCallOptions,
  LuaPoolOptions,
  LuaToolRegistration,
  ToolContextData,
  ToolOutcome,
} from "./types.js";

export type * from "./types.js";

export class LuaPool {
  constructor(private readonly options: LuaPoolOptions) {}

  /** Loads every extension in a first slot; returns registrations and per-extension load errors. */
  async load(): Promise<{ tools: LuaToolRegistration[]; errors: ExtensionLoadError[] }> {
    return {
      tools: [],
      errors: this.options.extensions.map((e) => ({
        extension: e.name,
        file: e.file,
        message: `${e.file}: the Lua runtime is not built yet`,
      })),
    };
  }

  /** Runs one handler in a free slot (queueing beyond maxSlots). Never throws. */
  async call(extension: string, tool: string, _inputJson: string, _ctx: ToolContextData, _opts: LuaCallOptions): Promise<ToolOutcome> {
    return { status: "crash", extension, message: `tool "${tool}": the Lua runtime is not built yet`, traceback: "" };
  }

  async close(): Promise<void> {}
}

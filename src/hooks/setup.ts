/** The run's hooks: the Lua extensions' handlers and the config files' command hooks (docs/hooks.md). */
import type { LoadedConfig } from "../config/layers.js";
import type { LuaToolSet } from "../extensions/lua-tool-set.js";
import type { ProcessSandbox } from "../extensions/lua/types.js";
import { pluginsHaveHooks } from "../plugins/parts.js";
import { readCommandHooks } from "./command-config.js";
import { Hooks } from "./dispatcher.js";
import { LuaHooks } from "./lua-hooks.js";

export interface HooksSetup {
  /** The Lua extensions (their `awl.on` handlers); absent when the run has none. */
  lua?: LuaToolSet;
  /** The config files: their `hooks` (a project's only once the folder is trusted: config/layers.ts drops it otherwise). */
  config: LoadedConfig;
  cwd: string;
  env: NodeJS.ProcessEnv;
  secrets: readonly string[];
  /** Credential variables withheld by name, and those passed all the same (util/secrets.ts `childEnv`). */
  withheldEnv?: readonly string[];
  passEnv?: readonly string[];
  sandbox?: ProcessSandbox;
  sessionId: () => string | undefined;
  /** Problems of the config and hook failures (stderr, the UI's notices). */
  warn: (text: string) => void;
}

/** The hooks of the run; undefined when no hook can run (no Lua extensions and no command hooks). */
export async function setupHooks(setup: HooksSetup): Promise<Hooks | undefined> {
  const configured = readCommandHooks(setup.config.layers);
  // The plugins' hooks files are read (their reader loaded) only when a plugin has one.
  const plugins = pluginsHaveHooks(setup.env, setup.cwd, setup.config.trusted)
    ? (await import("../plugins/read-parts.js")).pluginCommandHooks(setup.env, setup.cwd, setup.config.trusted)
    : { hooks: [], problems: [] };
  const commands = [...configured.hooks, ...plugins.hooks];
  const problems = [...configured.problems, ...plugins.problems];
  for (const problem of problems) setup.warn(problem);
  if (!setup.lua && commands.length === 0) return undefined;
  return new Hooks({
    ...(setup.lua && { lua: new LuaHooks(setup.lua, Hooks.onceReporter(setup.warn)) }),
    commands,
    cwd: setup.cwd,
    env: setup.env,
    secrets: setup.secrets,
    ...(setup.withheldEnv && { withheldEnv: setup.withheldEnv }),
    ...(setup.passEnv && { passEnv: setup.passEnv }),
    ...(setup.sandbox && { sandbox: setup.sandbox }),
    session: () => {
      const id = setup.sessionId();
      return id === undefined ? {} : { id };
    },
    report: setup.warn,
    problems,
    show: setup.warn,
  });
}

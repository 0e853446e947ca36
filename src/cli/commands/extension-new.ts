/**
 * `awl extensions new NAME [--user] [--dir]`: writes a working, commented skeleton (one file, or with `--dir` a
 * capability folder with metadata and a module of its own) that `awl tool call` runs at once, and a `.luarc.json`
 * that points lua-language-server at awl's LuaCATS declarations (docs/lua/awl.lua in the package).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { packagePath } from "../../util/package-path.js";
import { userConfigDir } from "../../config/paths.js";

/** The package's folder of LuaCATS declarations. */
export const LUA_DECLARATIONS_DIR = packagePath("docs", "lua", "/");

const NAME_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export interface NewExtension {
  /** Files written, in order. */
  written: string[];
  /** The tool the skeleton registers, and input that works for `awl tool call`. */
  tool: string;
  input: string;
}

/** Writes the skeleton; a message when the name is not usable or the files exist already. */
export function writeNewExtension(name: string, options: { user: boolean; dir: boolean; cwd: string; env: NodeJS.ProcessEnv }): NewExtension | string {
  if (!NAME_PATTERN.test(name)) return `"${name}" is not a usable extension name: use letters, digits, "_" and "-", with dots between parts (e.g. weather or tools.weather)`;
  if (name.startsWith("std.") || name === "std") return `"${name}": names under std. belong to awl's bundled extensions; choose another`;
  const folder = options.user ? join(userConfigDir(options.env), "extensions") : resolve(options.cwd, ".awl", "extensions");
  const parts = name.split(".");
  const base = join(folder, ...parts);
  const entry = options.dir ? join(base, "init.lua") : `${base}.lua`;
  for (const clash of [`${base}.lua`, join(base, "init.lua")]) {
    if (existsSync(clash)) return `${clash} exists already; awl extensions new never overwrites a file`;
  }
  const tool = parts.at(-1)!.replace(/-/g, "_");
  const written: string[] = [];
  const write = (file: string, text: string): void => {
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, text, { flag: "wx" });
    written.push(file);
  };
  if (options.dir) {
    write(entry, capabilitySource(name, tool));
    write(join(base, "greeting.lua"), MODULE_SOURCE);
  } else {
    write(entry, singleFileSource(name, tool));
  }
  const luarc = join(folder, ".luarc.json");
  if (!existsSync(luarc)) write(luarc, luarcText());
  return { written, tool, input: '{"who": "Ada"}' };
}

/** What lua-language-server needs: Lua 5.4, awl's declarations, and the two globals awl provides. */
export function luarcText(): string {
  const config = {
    "runtime.version": "Lua 5.4",
    "workspace.library": [LUA_DECLARATIONS_DIR.replace(/\/$/, "")],
    "diagnostics.globals": ["awl", "agent"],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

const TOOL_BODY = (tool: string, greet: string) => `awl.register_tool {
  -- What the model calls: 1 to 64 letters, digits, "_" or "-".
  name = "${tool}",
  -- What the model reads to decide whether to call it: what it does, what to give it, what comes back.
  description = "Greet someone by name. Give \`who\`; returns one line of greeting.",
  -- What the tool does to the world, for awl's permissions: "read", "write", "exec" or "network".
  kinds = { "read" },
  -- JSON Schema of the input; the model's arguments arrive as \`args\`.
  parameters = {
    type = "object",
    properties = { who = { type = "string", description = "The name of the one to greet." } },
    required = { "who" },
  },
  -- The handler: return a string (what the model reads) or a table { content = ..., summary = ... }.
  -- error(awl.tool_error "...") is a failure the model reads and can fix; any other error is a crash.
  run = function(args, ctx)
    if args.who == "" then error(awl.tool_error("give the name of the one to greet")) end
    ctx:title(args.who)
    return ${greet}
  end,
}
`;

function singleFileSource(name: string, tool: string): string {
  return `-- ${name}: an awl extension (docs/extension-api.md in the awl package).
-- awl loads this file in every Lua worker. Save it while awl runs and the next message uses the new version.
-- Try it without a model:  awl tool call ${tool} '{"who": "Ada"}'

${TOOL_BODY(tool, '"Hello, " .. args.who .. "!"')}
-- Close what the tool keeps open (a connection, a child process) when awl reloads or exits.
awl.on_unload(function() end)
`;
}

function capabilitySource(name: string, tool: string): string {
  return `-- ${name}: an awl capability, a folder of tools switched on and off as a unit
-- (awl extensions disable ${name}). Its other files are its own modules, loaded with require.
-- Try it without a model:  awl tool call ${tool} '{"who": "Ada"}'

-- Metadata awl reads WITHOUT running this file (awl extensions lists it): plain string literals only.
awl.capability {
  label = "${name}",
  description = "Greets people. Say here what this capability's tools are for.",
  version = "0.1.0",
  license = "MIT",
}

local greeting = require("greeting") -- greeting.lua beside this file

${TOOL_BODY(tool, "greeting.hello(args.who)")}
awl.on_unload(function() end)
`;
}

const MODULE_SOURCE = `-- A module of the capability: require("greeting") finds it beside init.lua.
local M = {}

function M.hello(who)
  return "Hello, " .. who .. "!"
end

return M
`;

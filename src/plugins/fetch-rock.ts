/**
 * `luarocks:NAME[@VERSION]` (docs/plugins.md, "Sources"): a pure-Lua rock, fetched with the user's `luarocks`
 * (`luarocks download --source` through the rocks servers it is configured for, then `luarocks unpack`), and
 * turned into a plugin package of Lua modules without building anything: its rockspec is read in an empty Lua
 * environment ({@link READ_ROCKSPEC}), and each module it declares is copied to `lua/<module path>.lua`. A rock with
 * a C module, or whose build is not `builtin`/`none` (make, cmake, a command: awl cannot check it is pure Lua), is
 * refused with the reason: awl's Lua is WebAssembly and loads no C. The package's `awl-rock.json` says what it is.
 */
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import { promisify } from "node:util";
import type { FetchedSource } from "./fetched-source.js";
import { PluginSourceError } from "./source-error.js";
import { ROCK_FILE } from "./package-format.js";

const run = promisify(execFile);

/**
 * Reads a rockspec (arg[1]) with the `lua` luarocks runs on (Lua 5.1 on Debian), building nothing: the rockspec runs
 * in an empty environment (no io, os or require), and what it declares is printed one tab-separated line each.
 */
const READ_ROCKSPEC = `local file = assert(io.open(arg[1], "rb"))
local text = file:read("*a")
file:close()
assert(text:byte(1) ~= 27, "a rockspec must be Lua source, not bytecode")
local env = {}
local chunk = assert((setfenv and loadstring or load)(text, "=rockspec", "t", env))
if setfenv then setfenv(chunk, env) end
chunk()
local build = type(env.build) == "table" and env.build or {}
print("package\\t" .. tostring(env.package))
print("version\\t" .. tostring(env.version))
print("type\\t" .. tostring(build.type))
for _, dep in ipairs(type(env.dependencies) == "table" and env.dependencies or {}) do print("dep\\t" .. tostring(dep)) end
local function modules(list, where)
  for name, value in pairs(type(list) == "table" and list or {}) do
    print("module\\t" .. tostring(name) .. "\\t" .. (type(value) == "string" and value or "\\1" .. type(value)) .. "\\t" .. where)
  end
end
modules(build.modules, "build.modules")
local install = type(build.install) == "table" and build.install or {}
modules(install.lua, "build.install.lua")
modules(install.lib, "build.install.lib")
for platform, spec in pairs(type(build.platforms) == "table" and build.platforms or {}) do
  if type(spec) == "table" then modules(spec.modules, "build.platforms." .. tostring(platform) .. ".modules") end
end
`;

/** What a rockspec declares, as {@link READ_ROCKSPEC} prints it. */
interface Rockspec {
  package: string;
  version: string;
  type: string;
  deps: string[];
  modules: Array<{ name: string; file: string; where: string }>;
}

/** Fetches the rock of `spec` into `staging` and makes its plugin package there. */
export async function fetchRock(spec: string, staging: string, env: NodeJS.ProcessEnv): Promise<FetchedSource> {
  const body = spec.slice("luarocks:".length);
  const at = body.lastIndexOf("@");
  const [name, version] = at > 0 ? [body.slice(0, at), body.slice(at + 1)] : [body, undefined];
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name) || (version !== undefined && !/^[A-Za-z0-9_.-]+$/.test(version))) {
    throw new PluginSourceError(`${spec}: not a rock name (luarocks:NAME or luarocks:NAME@VERSION)`);
  }
  const work = join(staging, "rock");
  mkdirSync(work);
  const luarocks = async (args: string[], what: string): Promise<string> => {
    try {
      return (await run("luarocks", args, { cwd: work, env, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 })).stdout;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new PluginSourceError(`${spec}: luarocks is not installed (Debian: apt-get install luarocks)`);
      const said = String((error as { stderr?: string }).stderr ?? "").trim() || String((error as { stdout?: string }).stdout ?? "").trim() || (error as Error).message;
      throw new PluginSourceError(`${spec}: ${what} failed: ${said.split("\n").filter(Boolean).pop()}`);
    }
  };
  await luarocks(["download", "--source", name, ...(version !== undefined ? [version] : [])], "luarocks download");
  const rock = readdirSync(work).find((f) => f.endsWith(".src.rock"));
  if (!rock) throw new PluginSourceError(`${spec}: luarocks download gave no .src.rock`);
  const unpacked = await luarocks(["unpack", rock], "luarocks unpack");
  const rockDir = join(work, rock.slice(0, -".src.rock".length));
  const sourceLine = /enter directory\s*\n?\s*(\S+)/.exec(unpacked)?.[1];
  const sourceDir = sourceLine ? join(work, sourceLine) : rockDir;
  const rockspecFile = join(rockDir, `${rock.slice(0, -".src.rock".length)}.rockspec`);
  const rockspec = readRockspec(spec, rockspecFile, env);
  const refused = pureLuaProblem(rockspec);
  if (refused) throw new PluginSourceError(`${spec}: refused: ${refused}`);
  const root = join(staging, "package");
  const within = realpathSync(sourceDir);
  if (!within.startsWith(realpathSync(work) + sep)) throw new PluginSourceError(`${spec}: refused: its source folder ${sourceLine} is outside the unpacked rock`);
  for (const module of rockspec.modules) {
    let from: string;
    try {
      from = realpathSync(join(sourceDir, module.file));
    } catch {
      throw new PluginSourceError(`${spec}: module "${module.name}" names ${module.file}, which the rock does not have`);
    }
    if (!from.startsWith(within + sep)) throw new PluginSourceError(`${spec}: refused: module "${module.name}" names ${module.file}, outside the rock`);
    const to = join(root, "lua", modulePath(module.name, module.file));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
  }
  copyFileSync(rockspecFile, join(root, basename(rockspecFile)));
  const description = { name: rockspec.package, version: rockspec.version, rock, modules: rockspec.modules.map((m) => m.name).sort(), dependencies: rockspec.deps };
  writeFileSync(join(root, ROCK_FILE), `${JSON.stringify(description, null, 2)}\n`);
  return { root, kind: "luarocks", source: spec, resolved: rockspec.version };
}

/** Why the rock is not pure Lua, or undefined. */
function pureLuaProblem(rockspec: Rockspec): string | undefined {
  const webAssembly = "awl's Lua is WebAssembly and cannot load C modules";
  if (!["builtin", "module", "none"].includes(rockspec.type)) {
    return `its build type is "${rockspec.type}" (a build awl cannot check to be pure Lua; only builtin and none rocks install; ${webAssembly})`;
  }
  const c = rockspec.modules.find((m) => m.where === "build.install.lib" || m.file.startsWith("\u0001") || !m.file.endsWith(".lua"));
  if (c) return `module "${c.name}" (${c.where}) is ${c.file.startsWith("\u0001") ? "built from C sources" : c.file}, not Lua: ${webAssembly}`;
  if (rockspec.modules.length === 0) return "it declares no Lua module";
  // A module name becomes a path below lua/: nothing but name parts may reach it (no "..", "/" or absolute path).
  const odd = rockspec.modules.find((m) => !/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(m.name));
  if (odd) return `module name ${JSON.stringify(odd.name)} is not a Lua module name (letters, digits, _ and -, parts joined by .)`;
  return undefined;
}

/** `a.b` from `src/a/b.lua` → `a/b.lua`; from `.../init.lua` → `a/b/init.lua` (as luarocks installs it). */
function modulePath(name: string, file: string): string {
  const path = name.split(".").join("/");
  return basename(file) === "init.lua" ? `${path}/init.lua` : `${path}.lua`;
}

function readRockspec(spec: string, file: string, env: NodeJS.ProcessEnv): Rockspec {
  let out: string;
  try {
    out = execFileSync("lua", ["-", file], { input: READ_ROCKSPEC, env, timeout: 10_000, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] });
  } catch (error) {
    throw new PluginSourceError(`${spec}: its rockspec cannot be read: ${String((error as { stderr?: string }).stderr ?? (error as Error).message).trim().split("\n")[0]}`);
  }
  const spec_: Rockspec = { package: "", version: "", type: "", deps: [], modules: [] };
  for (const line of out.split("\n")) {
    const [key, a = "", b = "", c = ""] = line.split("\t");
    if (key === "package") spec_.package = a;
    else if (key === "version") spec_.version = a;
    else if (key === "type") spec_.type = a;
    else if (key === "dep") spec_.deps.push(a);
    else if (key === "module") spec_.modules.push({ name: a, file: b, where: c });
  }
  return spec_;
}

/**
 * `luarocks:NAME[@VERSION]` (docs/plugins.md, "Sources"): a pure-Lua rock, fetched with the user's `luarocks`
 * (`luarocks download --source` through the rocks servers it is configured for, then `luarocks unpack`), and
 * turned into a plugin package of Lua modules without building anything: its rockspec is read in an empty Lua
 * environment ({@link READ_ROCKSPEC}), and each module it declares is copied to `lua/<module path>.lua`. A rock with
 * a C module, or whose build is not `builtin`/`none` (make, cmake, a command: awl cannot check it is pure Lua), is
 * refused with the reason: awl's Lua is WebAssembly and loads no C. The package's `awl-rock.json` says what it is.
 *
 * The rocks it depends on (its rockspec's `dependencies`, but `lua`) are fetched the same way, each the newest
 * version the rocks servers have that meets the constraints (`==`, `~=`, `>=`, `>`, `<=`, `<`, `~>`), and their
 * modules go into the same package, beside its own: one review and one digest cover them. A dependency that is not
 * pure Lua, or that no server has in a version meeting its constraints, refuses the whole install.
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

/** Fetches the rock of `spec` and the rocks it depends on into `staging` and makes its plugin package there. */
export async function fetchRock(spec: string, staging: string, env: NodeJS.ProcessEnv): Promise<FetchedSource> {
  const body = spec.slice("luarocks:".length);
  const at = body.lastIndexOf("@");
  const [name, version] = at > 0 ? [body.slice(0, at), body.slice(at + 1)] : [body, undefined];
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name) || (version !== undefined && !/^[A-Za-z0-9_.-]+$/.test(version))) {
    throw new PluginSourceError(`${spec}: not a rock name (luarocks:NAME or luarocks:NAME@VERSION)`);
  }
  const root = join(staging, "package");
  const main = await fetchOneRock(spec, name, version, join(staging, "rock"), root, env);
  const included: string[] = [];
  const seen = new Set([main.package.toLowerCase()]);
  const modules = new Map(main.modules.map((m) => [m.name, main.package]));
  const queue = main.deps.map((dep) => ({ dep, by: main.package }));
  for (let next = queue.shift(); next; next = queue.shift()) {
    const wanted = parseDependency(next.dep);
    if (!wanted) throw new PluginSourceError(`${spec}: refused: the dependency ${JSON.stringify(next.dep)} of "${next.by}" is not NAME [OP VERSION, ...]`);
    if (wanted.name === "lua" || seen.has(wanted.name)) continue;
    seen.add(wanted.name);
    const rock = await fetchOneRock(spec, wanted.name, newestMeeting(spec, wanted, env), join(staging, `dep-${included.length}`), root, env, `the rock "${wanted.name}" it depends on (through "${next.by}")`);
    for (const m of rock.modules) {
      const owner = modules.get(m.name);
      if (owner !== undefined) throw new PluginSourceError(`${spec}: refused: module "${m.name}" comes from both "${owner}" and "${rock.package}"`);
      modules.set(m.name, rock.package);
    }
    included.push(`${rock.package} ${rock.version}`);
    queue.push(...rock.deps.map((dep) => ({ dep, by: rock.package })));
  }
  const description = { name: main.package, version: main.version, rock: main.rock, modules: [...modules.keys()].sort(), dependencies: main.deps, included };
  writeFileSync(join(root, ROCK_FILE), `${JSON.stringify(description, null, 2)}\n`);
  return { root, kind: "luarocks", source: spec, resolved: main.version };
}

/**
 * Downloads and unpacks the rock `name` (at `version`, or the newest) in `work`, checks it is pure Lua and copies
 * its modules below `root`/lua/ and its rockspec into `root`. `what` names it in messages (a dependency).
 */
async function fetchOneRock(spec: string, name: string, version: string | undefined, work: string, root: string, env: NodeJS.ProcessEnv, what = ""): Promise<Rockspec & { rock: string }> {
  mkdirSync(work);
  const about = what ? ` (${what})` : "";
  const luarocks = async (args: string[], step: string): Promise<string> => {
    try {
      return (await run("luarocks", args, { cwd: work, env, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 })).stdout;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new PluginSourceError(`${spec}: luarocks is not installed (Debian: apt-get install luarocks)`);
      const said = String((error as { stderr?: string }).stderr ?? "").trim() || String((error as { stdout?: string }).stdout ?? "").trim() || (error as Error).message;
      throw new PluginSourceError(`${spec}: ${step}${about} failed: ${said.split("\n").filter(Boolean).pop()}`);
    }
  };
  await luarocks(["download", "--source", name, ...(version !== undefined ? [version] : [])], "luarocks download");
  const rock = readdirSync(work).find((f) => f.endsWith(".src.rock"));
  if (!rock) throw new PluginSourceError(`${spec}: luarocks download${about} gave no .src.rock`);
  const unpacked = await luarocks(["unpack", rock], "luarocks unpack");
  const rockDir = join(work, rock.slice(0, -".src.rock".length));
  const sourceLine = /enter directory\s*\n?\s*(\S+)/.exec(unpacked)?.[1];
  const sourceDir = sourceLine ? join(work, sourceLine) : rockDir;
  const rockspecFile = join(rockDir, `${rock.slice(0, -".src.rock".length)}.rockspec`);
  const rockspec = readRockspec(spec, rockspecFile, env);
  const refused = pureLuaProblem(rockspec);
  if (refused) throw new PluginSourceError(`${spec}: refused${about}: ${refused}`);
  const within = realpathSync(sourceDir);
  if (!within.startsWith(realpathSync(work) + sep)) throw new PluginSourceError(`${spec}: refused${about}: its source folder ${sourceLine} is outside the unpacked rock`);
  for (const module of rockspec.modules) {
    let from: string;
    try {
      from = realpathSync(join(sourceDir, module.file));
    } catch {
      throw new PluginSourceError(`${spec}: module "${module.name}"${about} names ${module.file}, which the rock does not have`);
    }
    if (!from.startsWith(within + sep)) throw new PluginSourceError(`${spec}: refused${about}: module "${module.name}" names ${module.file}, outside the rock`);
    const to = join(root, "lua", modulePath(module.name, module.file));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
  }
  copyFileSync(rockspecFile, join(root, basename(rockspecFile)));
  return { ...rockspec, rock };
}

/** `NAME [OP VERSION, ...]` of a rockspec's dependency; undefined when it is not one. */
function parseDependency(text: string): { name: string; constraints: Array<[string, string]> } | undefined {
  const match = /^\s*([A-Za-z0-9][A-Za-z0-9_.-]*)\s*(.*)$/.exec(text);
  if (!match) return undefined;
  const constraints: Array<[string, string]> = [];
  for (const part of match[2]!.split(",").map((p) => p.trim()).filter(Boolean)) {
    const c = /^(==|~=|>=|<=|>|<|~>|=)?\s*([A-Za-z0-9_.-]+)$/.exec(part);
    if (!c) return undefined;
    constraints.push([c[1] ?? "==", c[2]!]);
  }
  return { name: match[1]!.toLowerCase(), constraints };
}

/**
 * The newest version of `wanted` the rocks servers list (`luarocks search --porcelain`) that meets its constraints;
 * undefined (the newest) when it has none. Throws when no listed version meets them.
 */
function newestMeeting(spec: string, wanted: { name: string; constraints: Array<[string, string]> }, env: NodeJS.ProcessEnv): string | undefined {
  if (wanted.constraints.length === 0) return undefined;
  let listed: string;
  try {
    listed = execFileSync("luarocks", ["search", "--porcelain", wanted.name], { env, timeout: 300_000, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    throw new PluginSourceError(`${spec}: luarocks search ${wanted.name} failed: ${String((error as { stderr?: string }).stderr ?? (error as Error).message).trim().split("\n").pop()}`);
  }
  const versions = listed
    .split("\n")
    .map((line) => line.split("\t"))
    .filter(([n, , kind]) => n?.toLowerCase() === wanted.name && (kind === "src" || kind === "rockspec"))
    .map(([, v]) => v!);
  const meeting = versions.filter((v) => wanted.constraints.every(([op, want]) => meets(v, op, want))).sort((a, b) => compareVersions(b, a));
  const said = wanted.constraints.map(([op, v]) => `${op} ${v}`).join(", ");
  if (meeting.length === 0) throw new PluginSourceError(`${spec}: refused: it depends on the rock "${wanted.name} ${said}", and no rocks server has such a version${versions.length ? ` (there: ${[...new Set(versions)].join(", ")})` : ""}`);
  return meeting[0];
}

/** Whether `version` meets `op want` as luarocks reads them (`~> 1.2`: at least 1.2, below 1.3). */
function meets(version: string, op: string, want: string): boolean {
  const order = compareVersions(version.replace(/-\d+$/, ""), want.replace(/-\d+$/, ""));
  switch (op) {
    case "==":
    case "=":
      return order === 0;
    case "~=":
      return order !== 0;
    case ">=":
      return order >= 0;
    case ">":
      return order > 0;
    case "<=":
      return order <= 0;
    case "<":
      return order < 0;
    default: {
      // ~> 1.2: the same leading parts, at least as new.
      const parts = want.split(".");
      const next = [...parts.slice(0, -1).map(Number), Number(parts.at(-1)) + 1].join(".");
      return order >= 0 && compareVersions(version.replace(/-\d+$/, ""), next) < 0;
    }
  }
}

/** Numeric order of dotted versions (`1.10` after `1.9`; a revision `-N` last). */
function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
  const pb = b.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
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

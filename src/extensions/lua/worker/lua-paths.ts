/**
 * Where `require` looks: package.path and package.cpath for a worker's Lua state.
 * Order: the user's Lua directory (~/.config/awl/lua, $XDG_CONFIG_HOME honoured), awl's extra
 * directories, LUA_PATH_5_4 / LUA_PATH (";;" is where the defaults would go), then the system's
 * share/lua/5.4 ... 5.1 trees. package.cpath only serves to recognise C modules (which cannot load).
 */
import { join } from "node:path";
import { userConfigDir } from "../../../config/paths.js";

const VERSIONS = ["5.4", "5.3", "5.2", "5.1"];

/** C modules people commonly require, named in the error even when they are not installed. */
export const KNOWN_C_MODULES = [
  "lfs", "lpeg", "socket", "socket.core", "mime.core", "ssl", "posix", "cjson", "cjson.safe", "zlib", "lsqlite3",
  "luasql", "lxp", "rex_pcre", "rex_posix", "luv", "lua-utf8", "system", "term.core", "ffi", "readline", "iconv",
  "openssl", "lyaml", "yaml", "md5.core", "lzlib", "luaossl", "_openssl", "cURL", "lcurl", "curl", "uv", "ltn12ce",
];

function templates(dir: string): string[] {
  return [join(dir, "?.lua"), join(dir, "?", "init.lua")];
}

function multiarch(arch: string): string {
  if (arch === "x64") return "x86_64-linux-gnu";
  if (arch === "arm64") return "aarch64-linux-gnu";
  if (arch === "arm") return "arm-linux-gnueabihf";
  return `${arch}-linux-gnu`;
}

/** The user's Lua directory: `$XDG_CONFIG_HOME/awl/lua` or `~/.config/awl/lua`. */
export function userLuaDir(env: Record<string, string | undefined>, home: string): string {
  return join(userConfigDir({ ...env, HOME: home }), "lua");
}

/** Applies a LUA_PATH-style variable: ";;" marks where the defaults go; without it awl appends them. */
function splice(fromEnv: string | undefined, defaults: string[]): string[] {
  if (!fromEnv) return defaults;
  const MARK = "\u0001";
  const marked = fromEnv.includes(";;") ? fromEnv.replace(";;", `;${MARK};`) : `${fromEnv};${MARK}`;
  return marked
    .split(";")
    .filter((part) => part !== "")
    .flatMap((part) => (part === MARK ? defaults : [part]));
}

function unique(list: string[]): string {
  return [...new Set(list)].join(";");
}

export interface LuaSearchPaths {
  path: string;
  cpath: string;
}

export function luaSearchPaths(
  env: Record<string, string | undefined>,
  home: string,
  extraDirs: string[],
  arch: string = process.arch,
): LuaSearchPaths {
  const system = VERSIONS.flatMap((v) => [...templates(`/usr/local/share/lua/${v}`), ...templates(`/usr/share/lua/${v}`)]);
  const own = [userLuaDir(env, home), ...extraDirs].flatMap(templates);
  const path = [...own, ...splice(env.LUA_PATH_5_4 ?? env.LUA_PATH, system)];
  const cdirs = VERSIONS.flatMap((v) => [
    `/usr/local/lib/lua/${v}/?.so`,
    `/usr/lib/${multiarch(arch)}/lua/${v}/?.so`,
    `/usr/lib/lua/${v}/?.so`,
    `/usr/local/lib/lua/${v}/loadall.so`,
  ]);
  const cpath = splice(env.LUA_CPATH_5_4 ?? env.LUA_CPATH, cdirs);
  return { path: unique(path), cpath: unique(cpath) };
}

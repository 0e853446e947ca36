/** awl's folders on disk, XDG style. Absolute XDG variables win; relative ones are ignored, as the XDG spec says. */
import { join } from "node:path";
import { os } from "../util/lazy-builtin.js";

function xdgBase(env: NodeJS.ProcessEnv, variable: string, fallback: string): string {
  const value = env[variable];
  return value && value.startsWith("/") ? value : join(env.HOME || os().homedir(), fallback);
}

/** `$XDG_CONFIG_HOME/awl`, default `~/.config/awl`: configuration and user extensions. */
export function userConfigDir(env: NodeJS.ProcessEnv): string {
  return join(xdgBase(env, "XDG_CONFIG_HOME", ".config"), "awl");
}

/** `$XDG_DATA_HOME/awl`, default `~/.local/share/awl`: awl's data folder (sessions, spilled results); `ctx.home`. */
export function awlDataDir(env: NodeJS.ProcessEnv): string {
  return join(xdgBase(env, "XDG_DATA_HOME", join(".local", "share")), "awl");
}

/** `$XDG_CACHE_HOME/awl`, default `~/.cache/awl`: things awl can always rebuild. */
export function userCacheDir(env: NodeJS.ProcessEnv): string {
  return join(xdgBase(env, "XDG_CACHE_HOME", ".cache"), "awl");
}

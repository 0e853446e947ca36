/**
 * Brings a plugin SOURCE into a staging folder (docs/plugins.md, "Sources"), running none of its code:
 *
 * - `git:URL[@REF]`: any URL git clones (`file://`, a local path, https, ssh), checked out at REF (a tag, a
 *   branch or a commit; default the remote's HEAD), recorded by its commit; never asks for credentials;
 * - `npm:NAME[@VERSION]`: `npm pack` through the registry the user's npm is configured for (scripts off);
 * - `luarocks:NAME[@VERSION]`: a pure-Lua rock made into a package of Lua modules (fetch-rock.ts);
 * - a local folder (copied) or a packed tarball (`.tgz`, `.tar.gz`, `.tar`).
 *
 * An archive entry with an absolute path or `..`, a link pointing out of the package, or a device or fifo is
 * refused before anything is unpacked.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, isAbsolute, join, posix, resolve } from "node:path";
import { promisify } from "node:util";
import { fetchRock } from "./fetch-rock.js";
import type { FetchedSource } from "./fetched-source.js";
import { PluginSourceError } from "./source-error.js";
import { testPause } from "./test-pause.js";

const run = promisify(execFile);

export { PluginSourceError };
export type { FetchedSource };

/** Fetches `spec` into `staging` (an empty folder). */
export async function fetchSource(spec: string, staging: string, cwd: string, env: NodeJS.ProcessEnv): Promise<FetchedSource> {
  if (spec.startsWith("git:")) return fetchGit(spec, staging, cwd, env);
  if (spec.startsWith("npm:")) return fetchNpm(spec, staging, cwd, env);
  if (spec.startsWith("luarocks:")) return fetchRock(spec, staging, env);
  const path = resolve(cwd, spec);
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new PluginSourceError(`${spec}: no such folder or file (a SOURCE is git:URL[@ref], npm:NAME[@version], a folder or a .tgz)`);
  }
  if (isDir) {
    const root = join(staging, "package");
    cpSync(path, root, { recursive: true, verbatimSymlinks: true, filter: (from) => basename(from) !== ".git" });
    return { root, kind: "path", source: path };
  }
  if (!/\.(tgz|tar\.gz|tar)$/.test(path)) throw new PluginSourceError(`${spec}: not a folder or a .tgz/.tar.gz/.tar archive`);
  const root = await unpack(path, staging);
  testPause("unpacked", env);
  return { root, kind: "tarball", source: path };
}

/** `git:URL@REF` → URL and REF: the part after the last `@` when it has no `/` or `:` (so `git@host:x` is a URL). */
export function splitGitSpec(spec: string): { url: string; ref?: string } {
  const body = spec.slice("git:".length);
  const at = body.lastIndexOf("@");
  if (at > 0 && !/[/:]/.test(body.slice(at + 1)) && body.slice(at + 1) !== "") return { url: body.slice(0, at), ref: body.slice(at + 1) };
  return { url: body };
}

async function fetchGit(spec: string, staging: string, cwd: string, env: NodeJS.ProcessEnv): Promise<FetchedSource> {
  const { url: written, ref } = splitGitSpec(spec);
  // A local path is made absolute so the record works from any folder.
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(written) || /^[^/]+@[^/]+:/.test(written) || isAbsolute(written) ? written : resolve(cwd, written);
  const root = join(staging, "package");
  const gitEnv = { ...env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "", GCM_INTERACTIVE: "never", GIT_SSH_COMMAND: env.GIT_SSH_COMMAND ?? "ssh -o BatchMode=yes" };
  const git = async (args: string[], what: string): Promise<string> => {
    try {
      return (await run("git", args, { env: gitEnv, maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
    } catch (error) {
      const stderr = String((error as { stderr?: string }).stderr ?? (error as Error).message).trim();
      const credentials = /could not read (Username|Password)|Authentication failed|Permission denied|terminal prompts disabled/i.test(stderr);
      rmSync(root, { recursive: true, force: true });
      throw new PluginSourceError(`${spec}: ${what} failed${credentials ? " (the repository needs credentials; awl never asks for them: set up a credential helper or an ssh key)" : ""}: ${lastLine(stderr)}`);
    }
  };
  await git(["clone", "--quiet", "--no-checkout", "--", url, root], `git clone ${url}`);
  testPause("cloned", env);
  const tryRev = async (name: string): Promise<string> => {
    try {
      return (await run("git", ["-C", root, "rev-parse", "--verify", "--quiet", `${name}^{commit}`], { env: gitEnv })).stdout.trim();
    } catch {
      return "";
    }
  };
  let commit = "";
  for (const name of ref === undefined ? ["HEAD"] : [`refs/tags/${ref}`, `refs/remotes/origin/${ref}`, ref]) {
    commit = await tryRev(name);
    if (commit !== "") break;
  }
  if (commit === "") {
    rmSync(root, { recursive: true, force: true });
    throw new PluginSourceError(`${spec}: the repository has no ${ref === undefined ? "default branch" : `tag, branch or commit "${ref}"`}`);
  }
  await git(["-C", root, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit], `checking out ${ref ?? "HEAD"}`);
  rmSync(join(root, ".git"), { recursive: true, force: true });
  return { root, kind: "git", source: `git:${url}${ref !== undefined ? `@${ref}` : ""}`, resolved: commit };
}

async function fetchNpm(spec: string, staging: string, cwd: string, env: NodeJS.ProcessEnv): Promise<FetchedSource> {
  const name = spec.slice("npm:".length);
  let out: string;
  try {
    out = (await run("npm", ["pack", name, "--json", "--ignore-scripts", "--pack-destination", staging], { cwd, env, maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    throw new PluginSourceError(`${spec}: npm pack failed: ${npmError(String((error as { stderr?: string }).stderr ?? (error as Error).message))}`);
  }
  const packed = (JSON.parse(out) as Array<{ filename: string; version?: string }>)[0];
  if (!packed) throw new PluginSourceError(`${spec}: npm pack gave no archive`);
  const root = await unpack(join(staging, packed.filename.replace(/^@[^/]+\//, "").replace(/\//g, "-")), staging);
  return { root, kind: "npm", source: spec, ...(packed.version !== undefined && { resolved: packed.version }) };
}

/** Unpacks `file` into `staging/unpacked`; the package root is its only folder (npm's `package/`) or itself. */
async function unpack(file: string, staging: string): Promise<string> {
  const tar = await import("tar");
  const refused: string[] = [];
  await tar.t({
    file,
    onReadEntry: (entry) => {
      const problem = entryProblem(entry.path, entry.type, entry.linkpath);
      if (problem) refused.push(`${entry.path}: ${problem}`);
    },
  });
  if (refused.length > 0) throw new PluginSourceError(`${file}: refused: ${refused.slice(0, 3).join("; ")}${refused.length > 3 ? ` (and ${refused.length - 3} more)` : ""}`);
  const dest = join(staging, "unpacked");
  mkdirSync(dest);
  await tar.x({ file, cwd: dest, strict: true, preservePaths: false });
  const top = readdirSync(dest);
  return top.length === 1 && statSync(join(dest, top[0]!)).isDirectory() ? join(dest, top[0]!) : dest;
}

/** Why an archive entry is refused, or undefined. */
export function entryProblem(path: string, type: string, linkpath: string | undefined): string | undefined {
  if (path.startsWith("/") || /^[a-zA-Z]:/.test(path)) return "an absolute path";
  if (path.split(/[\\/]/).includes("..")) return 'a path with ".."';
  if (type === "SymbolicLink" || type === "Link") {
    if (!linkpath || linkpath.startsWith("/")) return `a link to ${linkpath}, outside the package`;
    const target = posix.normalize(posix.join(type === "Link" ? "" : posix.dirname(path), linkpath));
    if (target === ".." || target.startsWith("../")) return `a link to ${linkpath}, outside the package`;
    // npm's tarballs put everything under package/: a link must stay below the archive's first folder too.
    return undefined;
  }
  if (type !== "File" && type !== "OldFile" && type !== "Directory" && type !== "ContiguousFile") return `a ${type} entry (only files, folders and links)`;
  return undefined;
}

/** npm's own words from its stderr (`npm error code EINTEGRITY`, then the reason), without the pointer to its log. */
function npmError(stderr: string): string {
  const said = stderr
    .split("\n")
    .filter((l) => /^npm (error|ERR!)/.test(l))
    .map((l) => l.replace(/^npm (error|ERR!) ?/, "").trim())
    .filter((l) => l !== "" && !/^A complete log of this run/.test(l) && !/^Log files were not written/.test(l));
  return said.length > 0 ? said.slice(0, 2).join(": ") : lastLine(stderr);
}

function lastLine(text: string): string {
  const lines = text.split("\n").map((l) => l.trim()).filter(Boolean);
  return lines[lines.length - 1] ?? "no message";
}

/**
 * The exec sandbox (docs/permissions.md, "Sandbox"): with `--sandbox` (or `permissions.sandbox: true`) every
 * program a Lua extension starts — `std.bash`'s commands, `awl.exec`, `awl.spawn`, `io.popen`, `os.execute` —
 * runs inside bubblewrap (`bwrap`, Linux): the whole file system read-only except the workspace and the temp
 * folder; inside the workspace `.awl/` and `.git/` read-only too (what they hold runs later, outside the
 * sandbox); the credential folders awl knows hidden (`~/.ssh`, `~/.aws`, awl's config and data, ...); no network
 * (a program that some `network` rule lets reach a host gets a proxy instead, which decides each connection by
 * its host: sandbox-relay.ts, sandbox-proxy.ts); no Unix-socket connections (a seccomp filter,
 * seccomp.ts); its own process namespace (a process that left its group still dies with the call, and everything
 * dies with awl). awl never runs a program outside the sandbox when the sandbox is on: a missing `bwrap`, or a
 * kernel that refuses its namespaces or its seccomp filter, stops awl at start-up with a message saying so.
 */
import { accessSync, closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import type { Duplex } from "node:stream";
import { awlDataDir, userConfigDir } from "../config/paths.js";
import { childProcess, os } from "../util/lazy-builtin.js";
import type { ConfigResult } from "../config/errors.js";
import type { ProcessSandbox, SandboxedCommand } from "../extensions/lua/types.js";
import type { PermissionSetup } from "./setup.js";
import { NETWORK_RULE } from "./engine.js";
import { isInside, realPathOf } from "./paths.js";
import { unixSocketFilter } from "./seccomp.js";
import { sandboxNetwork, type SandboxNetwork } from "./sandbox-network.js";
import { sandboxProxy } from "./sandbox-proxy.js";
import { BRIDGE_SCRIPT, RelayEnd } from "./sandbox-relay.js";
import { loadShellParser } from "./command-reading.js";

/** Folders (and files) in the home folder that hold credentials: hidden inside the sandbox unless opened. */
const CREDENTIAL_PATHS = [".ssh", ".aws", ".config/gcloud", ".netrc", ".docker", ".kube", ".gnupg", ".azure", ".npmrc", ".pypirc", ".git-credentials", ".config/gh"];

/** Folders inside the workspace whose content runs later, outside the sandbox: read-only inside it. */
const PROTECTED_IN_WORKSPACE = [".awl", ".git"];

export interface SandboxOptions {
  /** The workspace folder: writable inside the sandbox (but for its `.awl/` and `.git/`). */
  workspace: string;
  /** Further writable folders; the temp folder is always one. */
  writable?: readonly string[];
  /** The `bwrap` program; default: found on PATH. */
  bwrap?: string;
  /** What the programs may reach through the sandbox's proxy; default: nothing. */
  network?: SandboxNetwork;
  /** Hidden inside the sandbox (credential folders and files); default: those of {@link credentialPaths}. */
  hidden?: readonly string[];
  /**
   * What the user's `permissions.sandbox_open` opens: hidden paths it names (or lies in) stay visible; a Unix
   * socket it names turns the socket filter off (seccomp cannot tell one socket from another).
   */
  open?: readonly string[];
  /** awl's own folders: read-only even where a writable folder holds them, absent ones too; default {@link awlFolders}. */
  protectedFolders?: readonly string[];
}

/** A sandbox ready to wrap programs, or why there can be none here (a message for the user). */
export type SandboxResult = { ok: true; sandbox: BwrapSandbox } | { ok: false; message: string };

/** The credential folders and files awl hides inside the sandbox, for the home folder and awl folders of `env`. */
export function credentialPaths(env: NodeJS.ProcessEnv, home: string): string[] {
  return [...CREDENTIAL_PATHS.map((path) => join(home, path)), ...awlFolders(env)];
}

/** awl's config and data folders of `env`: what they hold runs later (a config, extensions), outside the sandbox. */
export function awlFolders(env: NodeJS.ProcessEnv): string[] {
  return [userConfigDir(env), awlDataDir(env)];
}

/** Wraps each program in `bwrap` with the folders, namespaces and filter above. */
export class BwrapSandbox implements ProcessSandbox {
  readonly writable: readonly string[];
  /** The workspace's `.awl/` and `.git/`: read-only inside the sandbox, an empty read-only folder where absent. */
  private readonly protectedDirs: readonly string[];
  /** awl's own folders that a writable folder holds: an empty read-only folder in their place, absent ones too. */
  private readonly ownDirs: readonly string[];
  /** Those of them `sandbox_open` opens: shown read-only. */
  private readonly shownDirs: readonly string[];
  private readonly hidden: readonly string[];
  /** An open descriptor of the filter's (unlinked) file; each program gets a descriptor of its own from it. */
  private readonly filterFd: number | undefined;

  constructor(
    readonly bwrap: string,
    workspace: string,
    writable: readonly string[],
    private readonly network?: SandboxNetwork,
    hidden: readonly string[] = [],
    open: readonly string[] = [],
    awlDirs: readonly string[] = [],
  ) {
    const root = realPathOf(workspace);
    this.writable = [...new Set([root, ...writable.map((dir) => realPathOf(dir))])];
    const opened = open.map((path) => realPathOf(path));
    const isOpened = (path: string): boolean => opened.some((o) => o === path || o.startsWith(`${path}/`) || path.startsWith(`${o}/`));
    const inWritable = (path: string): boolean => this.writable.some((dir) => isInside(path, dir));
    const own = [...new Set(awlDirs.map((path) => realPathOf(path)))].filter(inWritable);
    this.protectedDirs = PROTECTED_IN_WORKSPACE.map((name) => join(root, name));
    // Made now where absent (as bubblewrap makes a mount point): each program then finds the same folders.
    for (const dir of own) {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
      } catch {
        // left absent: its first absent parent is made read-only instead (arguments)
      }
    }
    this.ownDirs = own.filter((path) => !isOpened(path));
    this.shownDirs = own.filter(isOpened);
    this.hidden = [...new Set(hidden.map((path) => realPathOf(path)))].filter((path) => !isOpened(path) && !own.includes(path));
    const socketOpened = opened.some((path) => {
      try {
        return statSync(path).isSocket();
      } catch {
        return false;
      }
    });
    this.filterFd = socketOpened ? undefined : filterDescriptor();
  }

  /**
   * `argv` inside bwrap; a program that may reach some host runs under the bridge (sandbox-relay.ts), which gets
   * one more descriptor after the filter's: the caller's `relay` end goes to the proxy. `offline`: never.
   */
  wrap(argv: readonly string[], cwd: string, offline = false): SandboxedCommand {
    const fds = this.filterFd === undefined ? [] : [openSync(`/proc/self/fd/${this.filterFd}`, "r")];
    const sandboxed = [this.bwrap, ...this.arguments(cwd, fds.length > 0 ? 3 : undefined), "--"];
    const reach = offline ? "none" : (this.network?.reach(commandLineOf(argv)) ?? "none");
    if (reach === "none") return { argv: [...sandboxed, ...argv], fds };
    const proxy = sandboxProxy(this.network!.refusal(reach));
    const relay = (end: Duplex) => new RelayEnd(end, (connection) => proxy.emit("connection", connection));
    return { argv: [...sandboxed, process.execPath, "-e", BRIDGE_SCRIPT, String(3 + fds.length), ...argv], fds, relay };
  }

  /** The bwrap options for a program that runs in `cwd`; `filterFd`: the descriptor the program gets the seccomp filter on. */
  arguments(cwd: string, filterFd?: number): string[] {
    const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
    // Folders between a writable folder and a protected one (or another writable one) are bound onto themselves (so
    // mount points, still writable): a mount point cannot be renamed, so a command cannot move a protected folder
    // away with a parent and make a new one in its place (a workspace or a HOME inside the temp folder).
    const bound = new Set(this.writable);
    for (const dir of this.writable) for (const between of foldersBetween(this.writable, dir)) bound.add(between);
    /** Where a protected folder is made read-only: itself, or its first absent parent (nothing can be made below). */
    const guard = (dir: string): string => {
      for (const between of foldersBetween(this.writable, dir)) {
        if (!existsSync(between)) return between;
        bound.add(between);
      }
      return dir;
    };
    const readOnly: string[] = [];
    const mounted = new Set<string>();
    const protect = (dir: string, show: boolean): void => {
      const at = guard(dir);
      if (mounted.has(at)) return;
      mounted.add(at);
      // An absent folder gets an empty read-only one; awl's own folders are hidden so (an empty folder in their place).
      readOnly.push(...(show && at === dir && existsSync(dir) ? ["--ro-bind", dir, dir] : ["--tmpfs", at, "--remount-ro", at]));
    };
    for (const dir of this.protectedDirs) protect(dir, true);
    for (const dir of this.ownDirs) protect(dir, false);
    for (const dir of this.shownDirs) protect(dir, true);
    // Parents first: a folder bound after one inside it would hide that one's mount.
    for (const dir of [...bound].sort((x, y) => x.length - y.length)) args.push("--bind", dir, dir);
    args.push(...readOnly);
    for (const path of this.hidden) {
      let folder: boolean;
      try {
        folder = statSync(path).isDirectory();
      } catch {
        continue; // nothing to hide
      }
      args.push(...(folder ? ["--tmpfs", path, "--remount-ro", path] : ["--ro-bind", "/dev/null", path]));
    }
    args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--die-with-parent", "--new-session");
    if (filterFd !== undefined) args.push("--seccomp", String(filterFd));
    args.push("--chdir", cwd);
    return args;
  }
}

/** The folders below the innermost writable folder holding `path`, down to `path`'s parent, outermost first (none when none holds it). */
function foldersBetween(writable: readonly string[], path: string): string[] {
  const holder = writable.filter((dir) => dir !== path && isInside(path, dir)).sort((a, b) => b.length - a.length)[0];
  if (holder === undefined) return [];
  const out: string[] = [];
  for (let dir = dirname(path); dir !== holder && isInside(dir, holder); dir = dirname(dir)) out.unshift(dir);
  return out;
}

/** The seccomp filter in a private file, opened and unlinked: a descriptor only this process can reopen. */
function filterDescriptor(): number {
  const dir = mkdtempSync(join(os().tmpdir(), "awl-seccomp-"));
  try {
    const file = join(dir, "filter.bpf");
    writeFileSync(file, unixSocketFilter(), { mode: 0o600 });
    return openSync(file, "r");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Finds `bwrap` and starts `true` inside a sandbox once, so a kernel that refuses the namespaces or the seccomp
 * filter is found now, before any tool runs, and said in words.
 */
export function openSandbox(options: SandboxOptions, env: NodeJS.ProcessEnv = process.env): SandboxResult {
  if (process.platform !== "linux") return { ok: false, message: `--sandbox needs Linux (bubblewrap); this is ${process.platform}` };
  const bwrap = options.bwrap ?? findOnPath("bwrap", env.PATH ?? "");
  if (!bwrap) {
    return { ok: false, message: "--sandbox needs bubblewrap (the bwrap program), which is not on PATH: install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or run without --sandbox" };
  }
  const hidden = options.hidden ?? credentialPaths(env, env.HOME || os().homedir());
  const sandbox = new BwrapSandbox(bwrap, options.workspace, [os().tmpdir(), ...(options.writable ?? [])], options.network, hidden, options.open, options.protectedFolders ?? awlFolders(env));
  const failed = probe(sandbox, true);
  if (failed === undefined) return { ok: true, sandbox };
  if (probe(sandbox, false) === undefined) {
    return {
      ok: false,
      message: `--sandbox: bubblewrap cannot install the seccomp filter that keeps sandboxed commands off Unix sockets (${failed}); the kernel may lack seccomp (CONFIG_SECCOMP_FILTER) or a container may forbid it. awl runs nothing without the sandbox you asked for`,
    };
  }
  return {
    ok: false,
    message: `--sandbox: bubblewrap cannot start a sandbox here (${failed}); the kernel may refuse unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone, or AppArmor's kernel.apparmor_restrict_unprivileged_userns on Ubuntu), or a container may forbid them. awl runs nothing without the sandbox you asked for`,
  };
}

/** Runs `true` in the sandbox (with its filter or without): undefined when it ran, else why not. */
function probe(sandbox: BwrapSandbox, filtered: boolean): string | undefined {
  const command = sandbox.wrap(["true"], "/", true);
  const argv = filtered ? command.argv : [sandbox.bwrap, ...sandbox.arguments("/"), "--", "true"];
  try {
    const run = childProcess().spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "ignore", "pipe", ...command.fds] });
    if (!run.error && run.status === 0) return undefined;
    return run.error?.message ?? (run.stderr.trim().split("\n")[0] || `exit code ${run.status}`);
  } finally {
    for (const fd of command.fds) closeSync(fd);
  }
}

/**
 * The run's sandbox when its permissions ask for one (`--sandbox`, `permissions.sandbox`); an error when it cannot
 * be had. With `network` rules the shell parser is loaded first: command rules match the commands programs run.
 */
export async function runSandbox(setup: Pick<PermissionSetup, "sandbox" | "engine">): Promise<ConfigResult<BwrapSandbox | undefined>> {
  if (!setup.sandbox) return { ok: true, value: undefined };
  const { engine } = setup;
  if (engine.list().some((rule) => rule.tool === NETWORK_RULE)) await loadShellParser();
  const opened = openSandbox({ workspace: engine.workspace, network: sandboxNetwork(engine), ...(setup.sandbox.open && { open: setup.sandbox.open }) });
  if (!opened.ok) return { ok: false, error: { message: opened.message, hint: `the sandbox was asked for by ${setup.sandbox.source}` } };
  return { ok: true, value: opened.sandbox };
}

/** A program's command line as `network` rules match it: a shell's (`sh -c`, `bash -c`) command as written, else the words joined. */
export function commandLineOf(argv: readonly string[]): string {
  return argv.length === 3 && argv[1] === "-c" && /(?:^|\/)(?:ba|da|z)?sh$/.test(argv[0]!) ? argv[2]! : argv.join(" ");
}

function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

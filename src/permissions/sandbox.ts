/**
 * The exec sandbox (docs/permissions.md, "Sandbox"): with `--sandbox` (or `permissions.sandbox: true`) every
 * program a Lua extension starts — `std.bash`'s commands, `awl.exec`, `awl.spawn`, `io.popen`, `os.execute` —
 * runs inside bubblewrap (`bwrap`, Linux): the whole file system read-only except the workspace and the temp
 * folder, no network (unless a `network` rule allows the program, engine.ts), its own process namespace (a
 * process that left its group still dies with the call). awl never runs a program outside the sandbox when
 * the sandbox is on: a missing `bwrap`, or a kernel that refuses its namespaces, stops awl at start-up with a
 * message saying so.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import type { ConfigResult } from "../config/errors.js";
import type { ProcessSandbox } from "../extensions/lua/types.js";
import type { PermissionSetup } from "./setup.js";
import { NETWORK_RULE } from "./engine.js";
import { realPathOf } from "./paths.js";
import { loadShellParser } from "./shell-parser.js";

export interface SandboxOptions {
  /** The workspace folder: writable inside the sandbox. */
  workspace: string;
  /** Further writable folders; the temp folder is always one. */
  writable?: readonly string[];
  /** The `bwrap` program; default: found on PATH. */
  bwrap?: string;
  /** Whether the program `argv` may reach the network; default: none may. */
  network?: (argv: readonly string[]) => boolean;
}

/** A sandbox ready to wrap programs, or why there can be none here (a message for the user). */
export type SandboxResult = { ok: true; sandbox: BwrapSandbox } | { ok: false; message: string };

/** Wraps each program in `bwrap` with the folders and namespaces above. */
export class BwrapSandbox implements ProcessSandbox {
  readonly writable: readonly string[];

  constructor(
    readonly bwrap: string,
    writable: readonly string[],
    private readonly network: (argv: readonly string[]) => boolean = () => false,
  ) {
    this.writable = [...new Set(writable.map((dir) => realPathOf(dir)))];
  }

  wrap(argv: readonly string[], cwd: string): string[] {
    return [this.bwrap, ...this.arguments(cwd, this.network(argv)), "--", ...argv];
  }

  /** The bwrap options for a program that runs in `cwd`. */
  arguments(cwd: string, network: boolean): string[] {
    const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
    for (const dir of this.writable) args.push("--bind", dir, dir);
    args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent");
    if (!network) args.push("--unshare-net");
    args.push("--chdir", cwd);
    return args;
  }
}

/**
 * Finds `bwrap` and starts `true` inside a sandbox once, so a kernel that refuses the namespaces is found now,
 * before any tool runs, and said in words.
 */
export function openSandbox(options: SandboxOptions, env: NodeJS.ProcessEnv = process.env): SandboxResult {
  if (process.platform !== "linux") return { ok: false, message: `--sandbox needs Linux (bubblewrap); this is ${process.platform}` };
  const bwrap = options.bwrap ?? findOnPath("bwrap", env.PATH ?? "");
  if (!bwrap) {
    return { ok: false, message: "--sandbox needs bubblewrap (the bwrap program), which is not on PATH: install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or run without --sandbox" };
  }
  const sandbox = new BwrapSandbox(bwrap, [options.workspace, tmpdir(), ...(options.writable ?? [])], options.network);
  const probe = spawnSync(bwrap, [...sandbox.arguments("/", false), "--", "true"], { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "ignore", "pipe"] });
  if (probe.error || probe.status !== 0) {
    const why = probe.error?.message ?? (probe.stderr.trim().split("\n")[0] || `exit code ${probe.status}`);
    return {
      ok: false,
      message: `--sandbox: bubblewrap cannot start a sandbox here (${why}); the kernel may refuse unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone, or AppArmor's kernel.apparmor_restrict_unprivileged_userns on Ubuntu), or a container may forbid them. awl runs nothing without the sandbox you asked for`,
    };
  }
  return { ok: true, sandbox };
}

/**
 * The run's sandbox when its permissions ask for one (`--sandbox`, `permissions.sandbox`); an error when it cannot
 * be had. With `network` rules the shell parser is loaded first: they match the commands programs run.
 */
export async function runSandbox(setup: Pick<PermissionSetup, "sandbox" | "engine">): Promise<ConfigResult<BwrapSandbox | undefined>> {
  if (!setup.sandbox) return { ok: true, value: undefined };
  const { engine } = setup;
  if (engine.list().some((rule) => rule.tool === NETWORK_RULE)) await loadShellParser();
  const opened = openSandbox({ workspace: engine.workspace, network: (argv) => engine.allowsNetwork(commandLineOf(argv)) });
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

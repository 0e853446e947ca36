/** Runs the built `awl` (dist/cli/main.cjs) in a clean environment: no API keys from the host, a private config home. */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { tempDir } from "../support/temp-dir.js";

export { tempDir };

export const AWL = resolve(import.meta.dirname, "../../dist/cli/main.cjs");

export interface AwlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface AwlOptions {
  env?: Record<string, string>;
  /** Written to stdin, then closed; without it stdin is /dev/null. */
  input?: string;
  cwd?: string;
  /** A config file's text for this run. */
  configFile?: string;
  /** Called with the child once its stdout shows `text` (e.g. to send it a signal mid-stream). */
  onOutput?: { text: string; then(child: ChildProcess): void };
}

export function runAwl(args: string[], options: AwlOptions = {}): Promise<AwlRun> {
  const home = tempDir("awl-home-");
  if (options.configFile !== undefined) {
    mkdirSync(join(home, ".config", "awl"), { recursive: true });
    writeFileSync(join(home, ".config", "awl", "config.json"), options.configFile);
  }
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", TMPDIR: tmpdir(), HOME: home, XDG_CONFIG_HOME: join(home, ".config"), ...options.env };
  return new Promise((done, failed) => {
    const child = spawn(process.execPath, [AWL, ...args], {
      env,
      cwd: options.cwd ?? home,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let notified = false;
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
      if (options.onOutput && !notified && stdout.includes(options.onOutput.text)) {
        notified = true;
        options.onOutput.then(child);
      }
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", failed);
    child.on("close", (code) => done({ code, stdout, stderr }));
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

/** Writes a replay script (docs/replay-format.md) from objects, one per line. */
export function writeScript(dir: string, lines: unknown[], name = "script.jsonl"): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return path;
}

/** No stack trace may reach the user. */
export function expectNoStackTrace(text: string): void {
  if (/\n\s+at .+:\d+:\d+/.test(text) || /^\s*at [\w.<>]+ \(/m.test(text)) throw new Error(`stack trace in output:\n${text}`);
}

/**
 * `!command` at the prompt: runs the command in the user's shell in the working directory, shows its output, and
 * keeps it for the conversation: the next prompt sent starts with it (docs/cli.md, "Shell commands"). Esc or
 * Ctrl-C stops it (its whole process group). No model is called for it.
 */
import { spawn } from "node:child_process";

/** Output kept for the model (the screen shows it all): the first and last halves of this, when longer. */
export const MAX_SHELL_OUTPUT = 30_000;

export interface ShellRun {
  command: string;
  /** Exit code, or the signal that ended it. */
  status: string;
  output: string;
}

/** Runs `command` with `sh -c`, output (stdout and stderr, interleaved) passed to `onOutput` as it comes. */
export function runShellCommand(command: string, cwd: string, signal: AbortSignal, onOutput: (text: string) => void): Promise<ShellRun> {
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", command], { cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    const take = (chunk: Buffer): void => {
      const text = chunk.toString("utf8");
      output += text;
      onOutput(text);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    const stop = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      } catch {
        /* already gone */
      }
    };
    signal.addEventListener("abort", stop, { once: true });
    child.on("error", (e) => resolve({ command, status: `could not start: ${e.message}`, output }));
    child.on("close", (code, sig) => {
      signal.removeEventListener("abort", stop);
      resolve({ command, status: signal.aborted ? "stopped" : sig ? `ended by ${sig}` : `exit ${code ?? 0}`, output });
    });
  });
}

/** The text the conversation gets for a shell run, its output cut in the middle when long. */
export function shellRunText(run: ShellRun): string {
  let output = run.output;
  if (output.length > MAX_SHELL_OUTPUT) {
    const half = MAX_SHELL_OUTPUT / 2;
    output = `${output.slice(0, half)}\n[… ${output.length - MAX_SHELL_OUTPUT} characters left out …]\n${output.slice(-half)}`;
  }
  return `[awl: the user ran a shell command: \`${run.command}\` (${run.status}); its output:]\n\`\`\`\n${output.replace(/\n?$/, "\n")}\`\`\``;
}

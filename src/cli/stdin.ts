/** Piped stdin for print mode. A terminal is never read: without a pipe nothing prompts. */
import { fstatSync, readFile, readFileSync, statSync, type Stats } from "node:fs";
import { tty } from "../util/lazy-builtin.js";

/** How long awl waits on an open pipe before it says on stderr what it waits for. */
const QUIET_PIPE_HINT_MS = 2_000;

/**
 * Reads piped stdin to its end. Files and /dev/null are read synchronously, because creating `process.stdin`
 * costs start-up time; pipes are read off the main thread and sockets (what Node's `spawn` gives a child)
 * as a stream, so that a pipe left open with nothing in it gets a line on stderr instead of a silent wait.
 */
export async function readPipedStdin(): Promise<string> {
  const kind = fstatSync(0);
  if (isTerminal(kind)) return "";
  if (kind.isFile() || kind.isCharacterDevice()) return readFileSync(0, "utf8");
  const hint = setTimeout(() => {
    process.stderr.write("awl: waiting for piped stdin to end (it is added to the prompt); close it, or run awl with `< /dev/null` to send the prompt alone\n");
  }, QUIET_PIPE_HINT_MS);
  hint.unref();
  try {
    if (kind.isFIFO()) return await new Promise((done, failed) => readFile(0, "utf8", (error, text) => (error ? failed(error) : done(text))));
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
    return Buffer.concat(chunks).toString("utf8");
  } finally {
    clearTimeout(hint);
  }
}

/**
 * Whether stdin (`kind`: its stat) is a terminal. A terminal is a character device, and so is the null device
 * (`< /dev/null`, what `spawn` gives a child whose stdin it ignores), told apart by its device number without
 * loading `node:tty` (a one-line reply's only use of it when no terminal is attached: issue 30).
 */
function isTerminal(kind: Stats): boolean {
  if (!kind.isCharacterDevice()) return false;
  if (process.platform !== "win32" && kind.rdev !== 0 && kind.rdev === nullDevice()) return false;
  return tty().isatty(0);
}

/** The null device's number, or undefined where there is no `/dev/null` to stat. */
function nullDevice(): number | undefined {
  try {
    return statSync("/dev/null").rdev;
  } catch {
    return undefined;
  }
}

/** The prompt for print mode: the arguments, then a blank line, then what was piped in. */
export function composePrompt(argumentsPrompt: string, piped: string): string {
  const input = piped.replace(/\s+$/, "");
  if (argumentsPrompt.trim() === "") return input;
  return input === "" ? argumentsPrompt : `${argumentsPrompt}\n\n${input}`;
}

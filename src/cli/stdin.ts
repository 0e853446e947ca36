/** Piped stdin for print mode. A terminal is never read: without a pipe nothing prompts. */
import { fstatSync, readFile, readFileSync } from "node:fs";
import { isatty } from "node:tty";

/** How long awl waits on an open pipe before it says on stderr what it waits for. */
const QUIET_PIPE_HINT_MS = 2_000;

/**
 * Reads piped stdin to its end. Files and /dev/null are read synchronously, because creating `process.stdin`
 * costs start-up time; pipes are read off the main thread and sockets (what Node's `spawn` gives a child)
 * as a stream, so that a pipe left open with nothing in it gets a line on stderr instead of a silent wait.
 */
export async function readPipedStdin(): Promise<string> {
  if (isatty(0)) return "";
  const kind = fstatSync(0);
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

/** The prompt for print mode: the arguments, then a blank line, then what was piped in. */
export function composePrompt(argumentsPrompt: string, piped: string): string {
  const input = piped.replace(/\s+$/, "");
  if (argumentsPrompt.trim() === "") return input;
  return input === "" ? argumentsPrompt : `${argumentsPrompt}\n\n${input}`;
}

/** Piped stdin for print mode. A terminal is never read: without a pipe nothing prompts. */
import { fstatSync, readFileSync } from "node:fs";
import { isatty } from "node:tty";

/**
 * Reads piped stdin to its end. Pipes, files and /dev/null are read synchronously, because creating
 * `process.stdin` costs start-up time; sockets (what Node's `spawn` gives a child) may be non-blocking and
 * are read as a stream.
 */
export async function readPipedStdin(): Promise<string> {
  if (isatty(0)) return "";
  const kind = fstatSync(0);
  if (kind.isFIFO() || kind.isFile() || kind.isCharacterDevice()) return readFileSync(0, "utf8");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** The prompt for print mode: the arguments, then a blank line, then what was piped in. */
export function composePrompt(argumentsPrompt: string, piped: string): string {
  const input = piped.replace(/\s+$/, "");
  if (argumentsPrompt.trim() === "") return input;
  return input === "" ? argumentsPrompt : `${argumentsPrompt}\n\n${input}`;
}

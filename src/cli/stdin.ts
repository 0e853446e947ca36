/** Piped stdin for print mode. A terminal is never read: without a pipe nothing prompts. */
export async function readPipedStdin(stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (stdin.isTTY) return "";
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** The prompt for print mode: the arguments, then a blank line, then what was piped in. */
export function composePrompt(argumentsPrompt: string, piped: string): string {
  const input = piped.replace(/\s+$/, "");
  if (argumentsPrompt.trim() === "") return input;
  return input === "" ? argumentsPrompt : `${argumentsPrompt}\n\n${input}`;
}

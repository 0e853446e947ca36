/** What an extension printed, as awl shows it on stderr: each line prefixed with `[extension] `. */
export function extensionLogText(extension: string, text: string): string {
  const lines = text.endsWith("\n") ? text.slice(0, -1) : text;
  return `${lines.split("\n").map((l) => `[${extension}] ${l}`).join("\n")}\n`;
}

/**
 * The question the interactive mode asks once per project before it starts the servers of a `.mcp.json`
 * (a file someone else may have written): y starts them and remembers that; anything else refuses them and
 * remembers that too (`awl mcp approve NAME` changes it). Asked before the first prompt, on the terminal. Each
 * server is shown as written, `${VAR}`s unexpanded, with its env and headers (what it would be sent).
 */
import type { McpServerConfig } from "../../extensions/mcp/config.js";
import { showControls } from "../safe-text.js";

export function askMcpApproval(servers: readonly McpServerConfig[], file: string): Promise<boolean> {
  const input = process.stdin;
  const out = process.stdout;
  const lines = servers.map((s) => writtenLines(s).map((line, i) => (i === 0 ? `  ${line}` : `    ${line}`)).join("\n"));
  out.write(`${file} asks to start ${servers.length === 1 ? "this MCP server" : "these MCP servers"}:\n${lines.join("\n")}\nStart ${servers.length === 1 ? "it" : "them"} in this project? [y/N] `);
  return new Promise((resolve) => {
    input.setRawMode?.(true);
    input.setEncoding("utf8");
    const done = (answer: boolean): void => {
      input.off("data", onData);
      input.off("end", onEnd);
      input.setRawMode?.(false);
      input.pause();
      out.write(answer ? "yes\n" : "no\n");
      resolve(answer);
    };
    const onData = (chunk: string): void => done(/^y/i.test(chunk));
    const onEnd = (): void => done(false);
    input.on("data", onData);
    input.on("end", onEnd);
    input.resume();
  });
}

/** A server's entry as the file wrote it: the command line or URL, then its cwd, env and headers, one per line. */
function writtenLines(server: McpServerConfig): string[] {
  const entry = server.written ?? {};
  const text = (value: unknown): string => showControls(typeof value === "string" ? value : JSON.stringify(value));
  const t = server.transport!;
  const args = Array.isArray(entry.args) ? entry.args : [];
  const head = t.type === "stdio" ? [entry.command, ...args].map(text).join(" ") : `${t.type} ${text(entry.url)}`;
  const lines = [`${showControls(server.name)}: ${head}`];
  if (entry.cwd !== undefined) lines.push(`cwd: ${text(entry.cwd)}`);
  for (const [key, value] of Object.entries((entry.env ?? {}) as Record<string, unknown>)) lines.push(`env ${text(key)}=${text(value)}`);
  for (const [key, value] of Object.entries((entry.headers ?? {}) as Record<string, unknown>)) lines.push(`header ${text(key)}: ${text(value)}`);
  return lines;
}

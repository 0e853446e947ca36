/**
 * The question the interactive mode asks once per project before it starts the servers of a `.mcp.json`
 * (a file someone else may have written): y starts them and remembers that; anything else refuses them and
 * remembers that too (`awl mcp approve NAME` changes it). Asked before the first prompt, on the terminal.
 */
import type { McpServerConfig } from "../../extensions/mcp/config.js";

export function askMcpApproval(servers: readonly McpServerConfig[], file: string): Promise<boolean> {
  const input = process.stdin;
  const out = process.stdout;
  const lines = servers.map((s) => {
    const t = s.transport!;
    return `  ${s.name}: ${t.type === "stdio" ? [t.command, ...t.args].join(" ") : `${t.type} ${t.url}`}`;
  });
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

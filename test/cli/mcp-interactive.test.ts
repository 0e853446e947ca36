/**
 * MCP servers in the interactive mode (tmux): a project's .mcp.json approved once, its tools used, /extensions; the
 * config file's servers set up after the prompt with their cached tools in the first request; a server's failure
 * reported above the prompt.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import { EVERYTHING } from "../extensions/mcp/servers.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { awlCommand, tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();
const ODD = resolve(import.meta.dirname, "../fixtures/mcp/odd-server.mjs");

/** Asks /extensions until it shows the server `name` ready (its tools listed). */
async function untilReady(name: string): Promise<void> {
  for (let tries = 0; ; tries++) {
    await tty.terminal.type("/extensions");
    await tty.terminal.keys("Enter");
    const screen = await tty.terminal.waitFor(new RegExp(`mcp:${name} {2}(starting|ready)`));
    if (new RegExp(`mcp:${name} {2}ready`).test(screen)) return;
    if (tries > 60) throw new Error(`the server never got ready:\n${screen}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe("a project's .mcp.json in the interactive mode", () => {
  it("asks once before starting its servers, remembers the answer, and offers their tools", async () => {
    const project = tempDir("awl-project-");
    writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: EVERYTHING } } }));
    const { home, command } = awlCommand(tty.server, { args: ["--no-std-tools", "--allow", "*"] }); // about MCP: the /extensions list fits the screen
    const start = () => tty.terminal.start(`cd ${project} && ${command}; echo "[awl exited $?]"; sleep 60`);

    tty.server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "proj_echo", input: { message: "approved" } }]) }, openaiAnswer("The server echoed."));
    await start();
    const question = await tty.terminal.waitFor(/Start it in this project\? \[y\/N\]/);
    expect(question).toContain("asks to start this MCP server:");
    expect(question).toContain(`proj: ${EVERYTHING}`);
    await tty.terminal.type("y");
    await tty.terminal.waitFor(/\[y\/N\] yes\n(.|\n)*^>/m);
    // The first turn is sent once the server is ready enough to offer its tools: wait for /extensions to say so.
    await untilReady("proj");
    expect(await tty.terminal.screen()).toMatch(/mcp:proj {2}ready {2}stdio .*\n(?: {10}.*\n)? {4}13 tools, schemas [\d.]+ KB ≈ [\d.]+k? tokens per request: proj_echo/);
    await tty.send("use the server");
    await tty.terminal.waitFor(/The server echoed\.\n>/);
    expect(JSON.stringify(tty.server.requests[1]!.json())).toContain("Echo: approved");
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);

    // The second run remembers: no question, the server starts.
    await tty.reopen();
    await tty.terminal.start(`cd ${project} && ${command}; echo "[awl exited $?]"; sleep 60`);
    await tty.terminal.waitFor(/^>\s*$/m);
    expect(await tty.terminal.screen()).not.toContain("[y/N]");
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
  }, 120_000);

  it("a refusal is remembered too: the servers stay off, and /extensions says how to approve them", async () => {
    const project = tempDir("awl-project-");
    writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: EVERYTHING } } }));
    const { command } = awlCommand(tty.server, { args: ["--allow", "*"] });
    await tty.terminal.start(`cd ${project} && ${command}; echo "[awl exited $?]"; sleep 60`);
    await tty.terminal.waitFor(/\[y\/N\]/);
    await tty.terminal.type("n");
    await tty.terminal.waitFor(/\[y\/N\] no\n/);
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.type("/extensions");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/mcp:proj {2}unapproved(.|\n)*awl mcp approve\s+proj/); // wrapped where the folder's path puts it
  }, 120_000);

  it("servers of the config file are set up once the prompt is drawn: the first request offers their tools, cached from the run before", async () => {
    const { command } = awlCommand(tty.server, { args: ["--no-std-tools"], configFile: JSON.stringify({ mcpServers: { cfg: { command: EVERYTHING } } }) });
    const start = async () => {
      await tty.terminal.start(`${command}; echo "[awl exited $?]"; sleep 60`);
      await tty.terminal.waitFor(/^>\s*$/m);
    };
    // The first run lists the server's tools once it is ready (and keeps them in the tool-list cache).
    await start();
    await untilReady("cfg");
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);

    // The second run's first request, sent at once, offers them: the set-up after the prompt came before it.
    await tty.reopen();
    tty.server.enqueue(openaiAnswer("Seen."));
    await start();
    await tty.send("which tools?");
    await tty.terminal.waitFor(/Seen\.\n>/);
    const offered = (tty.server.requests[0]!.json() as { tools?: { function: { name: string } }[] }).tools?.map((t) => t.function.name) ?? [];
    expect(offered).toContain("cfg_echo");
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
  }, 120_000);

  it("a server that fails after the prompt is drawn is reported above the prompt, which keeps what was typed", async () => {
    const gate = join(tempDir("awl-gate-"), "open");
    const server = { command: process.execPath, args: [ODD, "crash"], env: { ODD_WAIT_FOR_FILE: gate } };
    const { command } = awlCommand(tty.server, { args: ["--no-std-tools"], configFile: JSON.stringify({ mcpServers: { late: server } }) });
    await tty.terminal.start(`${command}; echo "[awl exited $?]"; sleep 60`);
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.type("half a prompt");
    await tty.terminal.waitFor(/^> half a prompt\s*$/m);
    writeFileSync(gate, "");
    const screen = await tty.terminal.waitFor(/awl: MCP server "late" failed: .*\n(.*\n)*> half a prompt\s*(?:\n.*↑\S+ ↓\S+.*)?\s*$/, 30_000);
    // Printed once, on lines of its own: nothing of it on the prompt line.
    expect(screen.match(/MCP server "late" failed/g)).toHaveLength(1);
    expect(screen.split("\n").filter((line) => line.startsWith(">"))).toEqual(["> half a prompt"]);
    await tty.terminal.keys("C-u", "C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
  }, 120_000);
});

/** The README's "Writing an extension" walk-through, run as written: the first thing a new author copies must work. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, sandbox, type Sandbox } from "./support.js";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const section = README.slice(README.indexOf("## Writing an extension"));
/** The section's first Lua block and first shell block, as a reader copies them. */
const lua = /```lua\n([\s\S]*?)```/.exec(section)![1]!;
const commands = /```sh\n([\s\S]*?)```/.exec(section)![1]!.split("\n").filter((line) => line.startsWith("awl "));

let box: Sandbox;
let server: ReplayServer;
beforeEach(async () => {
  box = sandbox();
  server = await startReplayServer();
});
afterEach(async () => {
  await server.close();
  box.remove();
});

/** A command line of the README as arguments (its comment dropped, single quotes kept together). */
function argsOf(line: string): string[] {
  const words = line.replace(/\s+#.*$/, "").match(/'[^']*'|"[^"]*"|\S+/g)!;
  return words.slice(1).map((word) => (/^['"]/.test(word) ? word.slice(1, -1) : word));
}

it("works as written: the extension saved in the project, each command of the section, and a model's call headless", { timeout: 120_000 }, async () => {
  mkdirSync(join(box.cwd, ".awl/extensions"), { recursive: true });
  writeFileSync(join(box.cwd, ".awl/extensions/echo.lua"), lua);
  const outputs: Record<string, string> = {};
  for (const line of commands.filter((c) => !c.startsWith("awl -p"))) {
    const run = await box.awl(argsOf(line));
    expect(run.code, `${line}\n${run.stderr}`).toBe(0);
    outputs[line] = run.stdout;
  }
  const tools = Object.entries(outputs).find(([line]) => line.startsWith("awl tools "))![1];
  expect(tools).toMatch(/^echo {2}· {2}extension "echo" {2}· {2}\.awl\/extensions\/echo\.lua:1 {2}· {2}read/m);
  expect(Object.entries(outputs).find(([line]) => line.startsWith("awl tool call"))![1]).toBe("hi\n");

  // The last command: a model that calls the tool gets its result without anyone to ask.
  const prompt = commands.find((c) => c.startsWith("awl -p"))!;
  server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "echo", input: { message: "hi" } }]) }, { body: openaiText("It said hi.") });
  const run = await box.awl(argsOf(prompt), { env: providerEnv("openai", server.url) });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain("It said hi.");
  const sent = server.requests[1]!.json().messages.find((m: { role: string }) => m.role === "tool");
  expect(sent.content).toBe("hi");
});

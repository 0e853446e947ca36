/**
 * Hot reload in the interactive mode, in a real terminal (tmux) against the local replay server: an extension
 * edited between two turns changes the tools of the next request, a broken edit keeps the old tools and shows
 * file:line, the fix is picked up, /reload reruns discover_tools, and on_unload runs at reload and at exit.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { AWL, tempDir } from "./run-awl.js";
import { launchAwl, Terminal } from "./tmux-terminal.js";
import { openaiAnswer } from "./openai-answer.js";

let server: ReplayServer;
let terminal: Terminal;
beforeEach(async () => {
  server = await startReplayServer();
  terminal = new Terminal();
});
afterEach(async () => {
  await terminal.stop();
  await server.close();
});

/** A version of the extension: its tools come from discover_tools; each load and unload leaves a line in `marks`. */
function live(version: string, marks: string, tools: string): string {
  return `
local function mark(text) local f = assert(io.open(${JSON.stringify(marks)}, "a")); f:write(text .. "\\n"); f:close() end
awl.on_unload(function() mark("unload ${version}") end)
agent.on("discover_tools", function(registry)
  mark("discover ${version}")
  for name in (${JSON.stringify(tools)}):gmatch("%S+") do
    registry:add { name = name, description = "version ${version}", run = function() return name end }
  end
end)
`;
}

const toolNames = (request: number): string[] =>
  ((server.requests[request]!.json().tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

async function turn(prompt: string, answer: string): Promise<void> {
  server.enqueue(openaiAnswer(answer));
  await terminal.type(prompt);
  await terminal.keys("Enter");
  await terminal.waitFor(new RegExp(`${answer}\\n(.*\\n)*>`));
}

describe("hot reload in the interactive mode", () => {
  it("wraps a reload error at words on a narrow terminal, its continuation under the message", async () => {
    // A short home: the extension's path is one word, which must fit the line.
    const home = await launchAwl(terminal, server, { home: tempDir("awl-"), extensions: { "x.lua": 'awl.register_tool("x", { type = "object" }, function() return "" end)' }, columns: 60, args: ["--no-std-tools"] });
    await terminal.waitFor(/^>\s*$/m);
    await turn("first", "Answer one."); // the extensions are loaded and watched
    writeFileSync(join(home, ".config", "awl", "extensions", "x.lua"), 'error("this extension is broken on purpose with a long message that wraps")');
    const screen = await terminal.waitFor(/not reloaded[\s\S]*wraps\n/);
    const lines = screen.split("\n");
    const from = lines.findIndex((line) => line.startsWith('extension "x" not reloaded'));
    const message = lines.slice(from, lines.findIndex((line, i) => i > from && line.includes("wraps")) + 1);
    for (const line of message) expect(line.length, line).toBeLessThan(60);
    // Broken between words: joined with single spaces, the message reads whole.
    expect(message.map((line) => line.trim()).join(" ")).toContain("this extension is broken on purpose with a long message that wraps");
  });

  it("offers an edited extension's tools at the next request, keeps them through a broken edit, runs on_unload", { timeout: 90_000 }, async () => {
    const marks = join(tempDir("awl-marks-"), "marks");
    writeFileSync(marks, "");
    const home = await launchAwl(terminal, server, { extensions: { "live.lua": live("v1", marks, "live_one") }, columns: 220, args: ["--no-std-tools"] });
    const file = join(home, ".config", "awl", "extensions", "live.lua");
    await terminal.waitFor(/^>\s*$/m);
    await turn("first", "Answer one.");
    expect(toolNames(0)).toEqual(["live_one"]);

    writeFileSync(file, live("v2", marks, "live_one live_two"));
    await terminal.waitFor(/reloaded live \(\+live_two ~live_one\)/);
    await turn("second", "Answer two.");
    expect(toolNames(1)).toEqual(["live_one", "live_two"]);
    expect(readFileSync(marks, "utf8")).toBe("discover v1\ndiscover v2\nunload v1\n");

    writeFileSync(file, `${live("v3", marks, "live_three")}\nlocal broken = nil .. "x"\n`);
    await terminal.waitFor(/extension "live" not reloaded \(the previous version keeps serving\): .*live\.lua:11:/);
    await turn("third", "Answer three.");
    expect(toolNames(2)).toEqual(["live_one", "live_two"]);

    writeFileSync(file, live("v4", marks, "live_four"));
    await terminal.waitFor(/reloaded live \(\+live_four -live_one -live_two\)/);
    await turn("fourth", "Answer four.");
    expect(toolNames(3)).toEqual(["live_four"]);

    // /reload runs discover_tools again (the file did not change), after the old version's hooks.
    await terminal.type("/reload");
    await terminal.keys("Enter");
    await terminal.waitFor(/reloaded live \(tools unchanged\)/);
    await terminal.keys("C-d");
    await terminal.waitFor(/\[awl exited 0\]/);
    expect(readFileSync(marks, "utf8")).toBe(
      // v3 never got to discover_tools (its top level failed), and its hooks were never registered.
      "discover v1\ndiscover v2\nunload v1\ndiscover v4\nunload v2\ndiscover v4\nunload v4\nunload v4\n",
    );
  });
});

describe("the system prompt in a running session", () => {
  it("follows the tools: a bundled tool switched off leaves the next request with neither the tool nor its advice", { timeout: 90_000 }, async () => {
    const cwd = tempDir("awl-project-");
    const home = await launchAwl(terminal, server, { cwd, columns: 160 }); // a new user's: no ~/.config/awl yet
    await terminal.waitFor(/^>\s*$/m);
    await turn("first", "Answer one.");
    const system = (request: number): string => server.requests[request]!.json().messages[0].content;
    expect(toolNames(0)).toContain("bash");
    expect(system(0)).toContain("\n- bash runs builds, tests, git");

    const off = spawnSync(process.execPath, [AWL, "extensions", "disable", "std.bash"], { cwd, env: { PATH: process.env.PATH, TMPDIR: tmpdir(), HOME: home, XDG_CONFIG_HOME: join(home, ".config") }, encoding: "utf8" });
    expect(off.stdout).toContain("std.bash: disabled");
    await terminal.waitFor(/std\.bash/);
    await turn("second", "Answer two.");
    expect(toolNames(1)).not.toContain("bash");
    expect(system(1)).not.toContain("bash runs");
    expect(system(1)).toContain("\n- Read a file before you edit it");
  });
});

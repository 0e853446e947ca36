/**
 * Prompt history across runs, as a person sees it (tmux, the built awl, a replay server), and the history file's
 * own rules (cap, secrets, garbage) on the module.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PromptHistory } from "../../src/ui/editor/prompt-history.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();
const historyFile = (home: string): string => join(home, ".local", "share", "awl", "prompt-history.jsonl");

describe("prompt history in the terminal", () => {
  it("Up brings back the prompts of the last run, and after -c the resumed session's own; Ctrl-R searches them", async () => {
    const home = await tty.start();
    tty.server.enqueue(openaiAnswer("One."), openaiAnswer("Two."));
    await tty.send("first prompt alpha");
    await tty.terminal.waitFor(/One\.\n>/);
    await tty.send("second prompt beta");
    await tty.terminal.waitFor(/Two\.\n>/);
    await tty.reopen();

    // A second run: Up, Up shows the earlier prompts, newest first.
    await tty.start({ home });
    await tty.terminal.keys("Up");
    await tty.terminal.waitFor(/^> second prompt beta\s*$/m);
    await tty.terminal.keys("Up");
    await tty.terminal.waitFor(/^> first prompt alpha\s*$/m);
    await tty.terminal.keys("C-u");
    // Ctrl-R: the picker over the history; typing narrows it; Enter puts the prompt in, unsent.
    await tty.terminal.keys("C-r");
    await tty.terminal.waitFor(/search the prompt history[\s\S]*❯ second prompt beta/);
    await tty.terminal.type("alpha");
    await tty.terminal.waitFor(/search: alpha\n❯ first prompt alpha\n/);
    await tty.terminal.keys("Enter");
    const screen = await tty.terminal.waitFor(/^> first prompt alpha\s*$/m);
    expect(screen).not.toContain("search:");
    expect(tty.server.requests).toHaveLength(2);
    await tty.terminal.keys("C-u");
    await tty.send("/exit");
    await tty.terminal.waitFor(/\[awl exited 0\]/);

    // The history file went away (a fresh start), and -c: the resumed session's prompts are in Up/Down.
    writeFileSync(historyFile(home), "");
    await tty.reopen();
    await tty.start({ home, args: ["-c"] });
    await tty.terminal.waitFor(/continue below/);
    await tty.terminal.keys("Up");
    await tty.terminal.waitFor(/^> second prompt beta\s*$/m);
  });

  it("a history file edited into garbage is read around: the good lines still come back", async () => {
    const home = tempDir("awl-home-");
    mkdirSync(join(home, ".local", "share", "awl"), { recursive: true });
    const good = JSON.stringify({ v: 1, cwd: process.cwd(), at: "2026-12-01T00:00:00Z", text: "the good one" });
    writeFileSync(historyFile(home), `{not json\n\u0000\u0001garbage\n[1,2]\n${good}\n{"v":1,"cwd":3}\n`);
    await tty.start({ home });
    await tty.terminal.keys("Up");
    await tty.terminal.waitFor(/^> the good one\s*$/m);
    // What is sent next is added to it, with a key-shaped token redacted.
    await tty.terminal.keys("C-u");
    tty.server.enqueue(openaiAnswer("Noted."));
    await tty.send("my token is sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX1234 ok");
    await tty.terminal.waitFor(/Noted\.\n>/);
    const text = readFileSync(historyFile(home), "utf8");
    expect(text).toContain('"text":"my token is [REDACTED] ok"');
    expect(text).not.toContain("ABCDEFGHIJKLMNOP");
  });
});

describe("PromptHistory", () => {
  it("writes known keys and key-shaped tokens as [REDACTED], keeps prompts per directory and caps the file", () => {
    const dir = tempDir("awl-history-");
    const file = join(dir, "h.jsonl");
    const history = new PromptHistory({ file, cwd: "/a", size: 3, scrub: (t) => t.replaceAll("sk-known-secret-1", "[REDACTED]") });
    history.load();
    history.add("use sk-known-secret-1 please");
    for (let i = 0; i < 8; i++) history.add(`prompt ${i}`);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("sk-known-secret-1");
    // Twice the cap at most between rewrites; a reader keeps the newest `size`.
    expect(text.trim().split("\n").length).toBeLessThanOrEqual(6);
    const again = new PromptHistory({ file, cwd: "/a", size: 3 });
    again.load();
    expect(again.here()).toEqual(["prompt 5", "prompt 6", "prompt 7"]);
    const elsewhere = new PromptHistory({ file, cwd: "/b", size: 3 });
    elsewhere.load();
    expect(elsewhere.here()).toEqual([]);
    expect(elsewhere.everywhere().map((e) => e.text)).toEqual(["prompt 7", "prompt 6", "prompt 5"]);
  });
});

/**
 * The slash commands as a person sees them: the built `awl` in tmux against a local replay server, asserted on
 * the screen (and on what the server was sent).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiAnswer } from "./openai-answer.js";
import { runAwl } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

describe("slash commands", () => {
  it("/help wraps each description at words under its own column on a narrow terminal", async () => {
    await tty.start({ columns: 60, rows: 120 });
    await tty.send("/help");
    const screen = await tty.terminal.waitFor(/keys:[\s\S]*Ctrl-Z/);
    const lines = screen.split("\n");
    for (const line of lines.slice(lines.indexOf("commands:"))) expect(line.length, line).toBeLessThanOrEqual(59);
    // The /model description goes on under the description column, not under the names, and breaks at a space.
    const at = lines.findIndex((l) => l.startsWith("  /model [PROVIDER] NAME"));
    expect(at).toBeGreaterThan(0);
    const column = lines[at]!.indexOf("use another");
    expect(column).toBeGreaterThan(20);
    expect(lines[at + 1]!.slice(0, column).trim()).toBe("");
    expect(lines[at + 1]![column]).toMatch(/\S/);
    expect(screen).toContain("/exit, /quit");
    // Every key and prompt form the UI takes is listed, and every command.
    for (const key of ["Ctrl-R", "@path", "!command", "/permissions", "/mode"]) expect(screen).toMatch(new RegExp(`^  ${key.replace("/", "\\/")}`, "m"));
  });

  it("/model alone lists the models the server offers, the current one marked; /quit leaves", async () => {
    await tty.start();
    tty.server.enqueue({ status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ data: [{ id: "gpt-test" }, { id: "gpt-other" }, { id: "gpt-4o-mini" }] }) });
    await tty.send("/model");
    // A model the catalogue knows shows its figures (the model catalogue, docs/cost.md); the others their name.
    const screen = await tty.terminal.waitFor(/the server offers \(3\):\n {2}gpt-4o-mini {2}128k context · 16k out · \$0\.15\/\$0\.6 per M\n {2}gpt-other\n {2}gpt-test {2}\(current\)/);
    expect(screen).toContain("model: openai gpt-test");
    expect(tty.server.requests.at(-1)).toMatchObject({ method: "GET", url: "/v1/models" });
    expect(tty.server.requests.at(-1)!.headers.authorization).toBe("Bearer sk-test");
    await tty.send("/quit");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
  });

  it("/clear clears the screen and starts a new conversation; the old one stays saved and /resume picks it back", async () => {
    await tty.start();
    tty.server.enqueue(openaiAnswer("First answer."));
    await tty.send("first question");
    await tty.terminal.waitFor(/First answer\.\n>/);
    await tty.send("/clear");
    const cleared = await tty.terminal.waitFor(/new conversation; the last one is saved as (\S+) /);
    const id = /saved as (\S+) /.exec(cleared)![1]!;
    expect(cleared).not.toContain("first question");
    tty.server.enqueue(openaiAnswer("Second answer."));
    await tty.send("second question");
    await tty.terminal.waitFor(/Second answer\.\n>/);
    // The new conversation did not carry the old one.
    const sent = tty.server.requests.at(-1)!.json() as { messages: Array<{ role: string; content: unknown }> };
    expect(sent.messages.filter((m) => m.role === "user")).toHaveLength(1);

    // The picker: both sessions, the current one marked; typing filters; Enter resumes the chosen one.
    await tty.send("/resume");
    const picker = await tty.terminal.waitFor(/resume a session[\s\S]*second question {2}\(current\)/);
    expect(picker).toMatch(new RegExp(`${id} .*first question`));
    await tty.terminal.type("first");
    await tty.terminal.waitFor(/search: first\n❯ \S+ .*first question\n/);
    expect(await tty.terminal.screen()).not.toMatch(/❯.*second question/);
    await tty.terminal.keys("Enter");
    const resumed = await tty.terminal.waitFor(new RegExp(`resumed session ${id}[\\s\\S]*First answer\\.[\\s\\S]*continue below`));
    expect(resumed).not.toContain("search:");
  });

  it("/new after a prompt the model never answered (a 401) keeps no session of it; the answered one is listed", async () => {
    const home = await tty.start();
    tty.server.enqueue({ status: 401, headers: { "content-type": "application/json" }, body: '{"error":{"message":"Incorrect API key provided"}}' });
    await tty.send("refused question");
    await tty.terminal.waitFor(/the API key was refused[\s\S]*\n>/);
    await tty.send("/new");
    await tty.terminal.waitFor(/new conversation; the last one got no answer and is not kept\n>/);
    tty.server.enqueue(openaiAnswer("Answered."));
    await tty.send("answered question");
    await tty.terminal.waitFor(/Answered\.\n>/);
    await tty.send("/resume");
    const picker = await tty.terminal.waitFor(/resume a session[\s\S]*answered question {2}\(current\)/);
    expect(picker).not.toContain("refused question  ");
    expect(picker.match(/question/g)).toHaveLength(1 + 2); // the picker's one row, and the two prompts still on screen above it
    await tty.terminal.keys("Escape");
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
    const listed = await runAwl(["sessions", "--json"], { env: { HOME: home }, cwd: home });
    expect((JSON.parse(listed.stdout) as { first_prompt?: string }[]).map((s) => JSON.stringify(s))).toEqual([expect.stringContaining("answered question")]);
  });

  it("awl -r with no id opens the picker; Esc leaves it for a new conversation", async () => {
    const home = await tty.start();
    tty.server.enqueue(openaiAnswer("Saved."));
    await tty.send("a saved prompt");
    await tty.terminal.waitFor(/Saved\.\n>/);
    await tty.reopen();
    await tty.launch({ home, args: ["-r"] });
    await tty.terminal.waitFor(/resume a session[\s\S]*❯ \S+ .*a saved prompt/);
    await tty.terminal.keys("Escape");
    const screen = await tty.terminal.waitFor(/^>\s*$/m);
    expect(screen).not.toContain("search:");
  });

  it("/export writes the conversation held in memory under --no-session (nothing saved, something to export)", async () => {
    const home = await tty.start({ args: ["--no-session"] });
    tty.server.enqueue(openaiAnswer("Kept in memory."));
    await tty.send("an unsaved question");
    await tty.terminal.waitFor(/Kept in memory\.\n>/);
    const file = join(home, "out.md");
    await tty.send(`/export ${file}`);
    await tty.terminal.waitFor(/wrote \S+out\.md \(Markdown, 2 messages\)/);
    const markdown = readFileSync(file, "utf8");
    expect(markdown).toContain("## User\n\nan unsaved question");
    expect(markdown).toContain("## Assistant\n\nKept in memory.");
    expect(existsSync(join(home, ".local/share/awl/sessions"))).toBe(false);
  });

  it("/tools lines up its three columns and cuts descriptions to the terminal's width", async () => {
    await tty.start({ columns: 90, rows: 40, extensions: { "x.lua": 'awl.register_tool { name = "z", description = "a tool from an extension with a long name", parameters = { type = "object" }, kinds = { "read" }, run = function() return "" end }' } });
    await tty.send("/tools");
    const screen = await tty.terminal.waitFor(/tools \(\d+\):[\s\S]*\n  z +x +a tool/);
    const rows = screen.split("\n").filter((line) => /^  \S+ +std\.|^  z +x /.test(line));
    expect(rows.length).toBeGreaterThan(5);
    // The descriptions (the third column) start at one place on every row.
    const descriptionColumn = (line: string) => /^ {2}\S+ +\S+ +/.exec(line)![0].length;
    expect(new Set(rows.map(descriptionColumn)).size).toBe(1);
    for (const line of screen.split("\n")) expect(line.length, line).toBeLessThanOrEqual(89);
  });
});

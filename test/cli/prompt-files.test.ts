/** `@path` and `!command` at the prompt, as a person sees them (tmux, the built awl, a replay server). */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";
import { PNG_1X1 } from "../support/images.js";

const tty = tmuxTest();

/** The text of the last user message the server was sent. */
function lastUserText(): string {
  const body = tty.server.requests.at(-1)!.json() as { messages: Array<{ role: string; content: unknown }> };
  const content = body.messages.filter((m) => m.role === "user").at(-1)!.content;
  return typeof content === "string" ? content : (content as Array<{ text?: string }>).map((p) => p.text ?? "").join("");
}

describe("files and shell commands in a prompt", () => {
  it("Tab completes @paths without what .gitignore leaves out, and @file attaches the file's content", async () => {
    const project = tempDir("awl-project-");
    mkdirSync(join(project, "src"));
    writeFileSync(join(project, "src", "notes-alpha.txt"), "ALPHA CONTENT line\n");
    writeFileSync(join(project, "src", "notes-beta.log"), "ignored\n");
    writeFileSync(join(project, ".gitignore"), "*.log\n");
    await tty.start({ cwd: project });
    await tty.terminal.type("read @sr");
    await tty.terminal.keys("Tab");
    await tty.terminal.waitFor(/^> read @src\/\s*$/m);
    await tty.terminal.type("no");
    await tty.terminal.keys("Tab");
    // Only one file is left once the ignored .log is out: completed at once, with a space after it.
    await tty.terminal.waitFor(/^> read @src\/notes-alpha\.txt\s*$/m);
    tty.server.enqueue(openaiAnswer("Read it."));
    await tty.terminal.type("please");
    await tty.terminal.keys("Enter");
    const screen = await tty.terminal.waitFor(/Read it\.\n>/);
    expect(screen).toContain("(attached src/notes-alpha.txt)");
    expect(lastUserText()).toBe('read @src/notes-alpha.txt please\n\n<file path="src/notes-alpha.txt">\nALPHA CONTENT line\n</file>');
  });

  it("@file of an image attaches the image; an image file whose bytes are not of its type gets a note", async () => {
    const project = tempDir("awl-project-");
    writeFileSync(join(project, "shot.png"), Buffer.from(PNG_1X1, "base64"));
    writeFileSync(join(project, "fake.png"), "not a picture at all\n");
    // A model the catalogue knows: the image's tokens make awl check the window, which it would ask an unknown model's server.
    await tty.start({ cwd: project, extraEnv: ["AWL_MODEL=gpt-4o"] });
    tty.server.enqueue(openaiAnswer("A dot."));
    await tty.send("what is in @shot.png and @fake.png?");
    const screen = await tty.terminal.waitFor(/A dot\.\n>/);
    expect(screen).toContain("(attached shot.png)");
    expect(screen).toContain("(fake.png says image/png, but its data is not a PNG image; not attached)");
    const body = tty.server.requests.at(-1)!.json() as { messages: Array<{ role: string; content: unknown }> };
    expect(body.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "what is in @shot.png and @fake.png?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_1X1}` } }],
    });
  });

  it("!command runs in the shell, shows its output and sends it with the next prompt", async () => {
    const project = tempDir("awl-project-");
    writeFileSync(join(project, "marker.txt"), "x");
    await tty.start({ cwd: project });
    await tty.send("!echo shell-said-$((6*7)); ls");
    await tty.terminal.waitFor(/shell-said-42\nmarker\.txt\n\(exit 0; the output goes with your next prompt\)/);
    expect(tty.server.requests).toHaveLength(0);
    tty.server.enqueue(openaiAnswer("Seen."));
    await tty.send("what did it print?");
    await tty.terminal.waitFor(/Seen\.\n>/);
    const text = lastUserText();
    expect(text).toContain("[awl: the user ran a shell command: `echo shell-said-$((6*7)); ls` (exit 0); its output:]\n```\nshell-said-42\nmarker.txt\n```");
    expect(text.endsWith("what did it print?")).toBe(true);
  });
});

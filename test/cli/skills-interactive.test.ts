/** Skills and prompt commands at the interactive prompt, as a person sees them (tmux, the built awl, a scripted server). */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** The text of the last user message the server was sent. */
function lastUserText(): string {
  const body = tty.server.requests.at(-1)!.json() as { messages: Array<{ role: string; content: unknown }> };
  const content = body.messages.filter((m) => m.role === "user").at(-1)!.content;
  return typeof content === "string" ? content : (content as Array<{ text?: string }>).map((p) => p.text ?? "").join("\n");
}

describe("skills and prompt commands in the interactive mode", () => {
  it("/skills lists them, /help and Tab know them, /name loads a skill and a prompt command sends its prompt", { timeout: 90_000 }, async () => {
    const project = tempDir("awl-project-");
    write(join(project, ".awl", "skills", "pdf-tools", "SKILL.md"), "---\nname: pdf-tools\ndescription: PDF work.\n---\nPDF-BODY-MARKER\n");
    write(join(project, ".awl", "skills", "Bad", "SKILL.md"), "---\nname: Bad\ndescription: x\n---\n");
    write(join(project, ".awl", "commands", "greet.md"), "Say hello to $ARGUMENTS.\n");
    await tty.start({ cwd: project, args: ["--trust-project"], columns: 160, rows: 50 });
    await tty.send("/skills");
    const listed = await tty.terminal.waitFor(/\/greet {2}\.awl\/commands {2}offered/);
    expect(listed).toMatch(/pdf-tools {2}\.awl\/skills {2}[\d.]+ B {2}offered/);
    expect(listed).toContain('`name` "Bad" may hold only lowercase letters, digits and hyphens');
    await tty.send("/help");
    await tty.terminal.waitFor(/\/pdf-tools +skill: PDF work\./);
    await tty.terminal.type("/gre");
    await tty.terminal.keys("Tab");
    await tty.terminal.waitFor(/^> \/greet\s*$/m);
    tty.server.enqueue(openaiAnswer("Hello Ann."));
    await tty.terminal.type("Ann");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Hello Ann\.\n/);
    expect(lastUserText()).toBe("Say hello to Ann.");
    tty.server.enqueue(openaiAnswer("Loaded."));
    await tty.send("/pdf-tools read a.pdf");
    const screen = await tty.terminal.waitFor(/Loaded\.\n/);
    expect(screen).toContain("(loaded the skill pdf-tools)");
    expect(lastUserText()).toContain("PDF-BODY-MARKER");
    await tty.send("/nothing-here");
    await tty.terminal.waitFor(/unknown command \/nothing-here; \/help lists them/);
  });
});

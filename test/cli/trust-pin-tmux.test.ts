/** Trust pinned to content in a real terminal (tmux): a trusted folder's new extension is asked about, showing the change. */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { awlCommand, tmuxTest, type LaunchOptions } from "./tmux-terminal.js";

const tty = tmuxTest();

async function startIn(project: string, options: LaunchOptions = {}): Promise<string> {
  const { home, command } = awlCommand(tty.server, { args: ["--no-std-tools"], ...options });
  await tty.terminal.start(`cd ${project} && ${command}; echo "[awl exited $?]"; sleep 60`);
  return home;
}

const tools = (index: number): string[] => tty.server.requests[index]!.json().tools.map((t: any) => t.function.name);

describe("a trusted folder whose content changed", () => {
  it("asks before the new extension loads, showing it; n keeps the old one working without it; y loads it and pins it", async () => {
    const project = tempDir("awl-proj-");
    const dir = join(project, ".awl", "extensions");
    mkdirSync(dir, { recursive: true });
    const extension = (name: string) =>
      writeFileSync(join(dir, `${name}.lua`), `io.open(${JSON.stringify(join(project, `ran-${name}`))}, "w"):close()
awl.register_tool(${JSON.stringify(name)}, { type = "object" }, function() return "x" end)\n`);
    extension("old");

    tty.server.enqueue(openaiAnswer("One."));
    const home = await startIn(project);
    await tty.terminal.waitFor(/Trust .*\?/);
    await tty.terminal.type("y");
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.send("hi");
    await tty.terminal.waitFor(/One\.\n>/);
    expect(tools(0)).toEqual(["old"]);
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);

    extension("evil");
    await tty.reopen();
    tty.server.enqueue(openaiAnswer("Two."));
    await startIn(project, { home });
    await tty.terminal.waitFor(/Trust the new content\?/);
    const screen = await tty.terminal.screen();
    expect(screen).toContain("changed since you trusted it:");
    expect(screen).toContain('added extension "evil"');
    expect(existsSync(join(project, "ran-evil"))).toBe(false);
    await tty.terminal.type("n");
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.send("hi");
    await tty.terminal.waitFor(/Two\.\n>/);
    expect(tools(1)).toEqual(["old"]);
    expect(existsSync(join(project, "ran-evil"))).toBe(false);
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);

    await tty.reopen();
    tty.server.enqueue(openaiAnswer("Three."), openaiAnswer("Four."));
    await startIn(project, { home });
    await tty.terminal.waitFor(/Trust the new content\?/);
    await tty.terminal.type("y");
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.send("hi");
    await tty.terminal.waitFor(/Three\.\n>/);
    expect(tools(2)).toEqual(["evil", "old"]);
    expect(existsSync(join(project, "ran-evil"))).toBe(true);
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);

    // Pinned: the next start asks nothing.
    await tty.reopen();
    await startIn(project, { home });
    await tty.terminal.waitFor(/^>\s*$/m);
    expect(await tty.terminal.screen()).not.toContain("Trust");
  });
});

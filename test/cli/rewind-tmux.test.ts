/**
 * Rewind and branches in a real terminal (tmux), against the local replay server: Esc Esc on an empty prompt lists
 * the prompts with what changed since each; restoring code and conversation puts the files back and the prompt into
 * the editor; a new answer starts a branch; /tree lists both and switching shows the old answer; /fork continues in
 * a new session.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

function seed(): string {
  const project = tempDir("awl-proj-");
  writeFileSync(join(project, "a.txt"), "alpha\nbeta\n");
  writeFileSync(join(project, "c.txt"), "gamma\n");
  writeFileSync(join(project, "run.sh"), "#!/bin/sh\necho run\n");
  chmodSync(join(project, "run.sh"), 0o755);
  return project;
}

/** The model edits a.txt, writes b.txt, and runs bash that deletes c.txt and creates d.txt; then answers. */
function scriptTurn(answer: string): void {
  tty.server.enqueue(
    {
      body: openaiToolCalls([
        { id: "c1", name: "edit", input: { path: "a.txt", old_string: "alpha", new_string: "ALPHA" } },
        { id: "c2", name: "write", input: { path: "b.txt", content: "brand new b\n" } },
      ]),
    },
    { body: openaiToolCalls([{ id: "c3", name: "bash", input: { command: "sh -c 'rm c.txt; echo x > d.txt'" } }]) },
    openaiAnswer(answer),
  );
}

function sessionLines(home: string): any[] {
  const dir = join(home, ".local/share/awl/sessions");
  const [file] = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
  return readFileSync(join(dir, file!), "utf8").trim().split("\n").map((l) => JSON.parse(l));
}

describe("rewind in the terminal", () => {
  it("Esc Esc → the first prompt → code and conversation: files back, prompt in the editor; a new answer branches; /tree switches back", async () => {
    const project = seed();
    scriptTurn("Done.");
    const home = await tty.start({ cwd: project, args: ["--allow", "*"] });
    await tty.send("change the files");
    await tty.terminal.waitFor(/Done\.\n>/);
    expect(existsSync(join(project, "c.txt"))).toBe(false);

    await tty.terminal.keys("Escape");
    await tty.terminal.waitFor(/\(Esc again to rewind\)/);
    await tty.terminal.keys("Escape");
    await tty.terminal.waitFor(/rewind to before which prompt[\s\S]*1\. change the files {2}· 2 added, 1 modified, 1 deleted since/);
    await tty.terminal.keys("Enter");
    const shown = await tty.terminal.waitFor(/❯ restore code and conversation/);
    // What restoring the files will change, before anything is chosen.
    expect(shown).toMatch(/restoring the files to before prompt 1 would:\n {2}restore {2}a\.txt\n {2}create {3}c\.txt\n {2}delete {3}b\.txt\n {2}delete {3}d\.txt/);
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/the conversation is back to before prompt 1[\s\S]*\n> change the files\s*\n/);
    expect(readFileSync(join(project, "a.txt"), "utf8")).toBe("alpha\nbeta\n");
    expect(readFileSync(join(project, "c.txt"), "utf8")).toBe("gamma\n");
    expect(existsSync(join(project, "b.txt"))).toBe(false);
    expect(existsSync(join(project, "d.txt"))).toBe(false);
    expect(statSync(join(project, "run.sh")).mode & 0o777).toBe(0o755);

    // The prompt, edited and sent again: a new branch beside the old one.
    tty.server.enqueue(openaiAnswer("Talked instead."));
    await tty.terminal.type(", but only talk");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Talked instead\.\n>/);
    const sent = tty.server.requests[3]!.json().messages.filter((m: any) => m.role !== "system");
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent)).toContain("change the files, but only talk");
    const lines = sessionLines(home);
    expect(lines.some((l) => l.type === "branch" && l.reason === "rewind")).toBe(true);
    const prompts = lines.filter((l) => l.type === "message" && l.message.role === "user" && l.message.content.some((b: any) => b.type === "text"));
    expect(prompts.map((l) => l.parent)).toEqual([null, null]);

    await tty.send("/tree");
    const tree = await tty.terminal.waitFor(/the session's branches[\s\S]*change the files, but only talk {2}◀ in use/);
    expect(tree).toMatch(/\d\d:\d\d {2}change the files\n[\s\S]*└ \d\d:\d\d {2}change the files, but only talk/);
    await tty.terminal.keys("Up");
    await tty.terminal.waitFor(/❯ \d\d:\d\d {2}change the files\n/);
    await tty.terminal.keys("Enter");
    // Switching shows the old branch's answer.
    await tty.terminal.waitFor(/> change the files\n[\s\S]*Done\.[\s\S]*continue below[\s\S]*\n>\s*$/m);
    expect(sessionLines(home).filter((l) => l.type === "branch").map((l) => l.reason)).toEqual(["rewind", "switch"]);
  });

  it("names a file changed outside awl and restores nothing unless the overwrite is confirmed", async () => {
    const project = seed();
    scriptTurn("Done.");
    await tty.start({ cwd: project, args: ["--allow", "*"] });
    await tty.send("change the files");
    await tty.terminal.waitFor(/Done\.\n>/);
    writeFileSync(join(project, "a.txt"), "the user's own work\n");
    await tty.send("/rewind 1");
    await tty.terminal.waitFor(/changed outside awl since its last checkpoint \(restoring would overwrite them\): a\.txt/);
    await tty.terminal.keys("Enter"); // code and conversation
    await tty.terminal.waitFor(/a\.txt changed outside awl: overwrite it\?[\s\S]*❯ no: restore nothing/);
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/nothing was restored\n[\s\S]*>\s*$/m);
    expect(readFileSync(join(project, "a.txt"), "utf8")).toBe("the user's own work\n");
    expect(existsSync(join(project, "c.txt"))).toBe(false);

    await tty.send("/rewind 1");
    await tty.terminal.waitFor(/❯ restore code and conversation/);
    await tty.terminal.keys("Down", "Down");
    await tty.terminal.waitFor(/❯ restore the code only/);
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/❯ no: restore nothing/);
    await tty.terminal.keys("Down", "Enter");
    await tty.terminal.waitFor(/restored the files to before prompt 1:/);
    expect(readFileSync(join(project, "a.txt"), "utf8")).toBe("alpha\nbeta\n");
    expect(readFileSync(join(project, "c.txt"), "utf8")).toBe("gamma\n");
  });

  it("/fork goes on in a new session holding the same history; the original stays", async () => {
    const project = tempDir("awl-proj-");
    tty.server.enqueue(openaiAnswer("First answer."), openaiAnswer("Forked answer."));
    const home = await tty.start({ cwd: project });
    await tty.send("hello");
    await tty.terminal.waitFor(/First answer\.\n>/);
    await tty.send("/fork");
    const screen = await tty.terminal.waitFor(/forked: this conversation goes on as session (\S+);\s+(\S+)\s+stays\s+as\s+it\s+was/);
    const [, forkId, fromId] = /goes on as session (\S+);\s+(\S+)\s+stays/.exec(screen)!;
    expect(forkId).not.toBe(fromId);
    await tty.send("and then?");
    await tty.terminal.waitFor(/Forked answer\.\n>/);
    expect(JSON.stringify(tty.server.requests[1]!.json().messages)).toContain("First answer.");
    const dir = join(home, ".local/share/awl/sessions");
    expect(readFileSync(join(dir, `${forkId}.jsonl`), "utf8")).toContain("Forked answer.");
    expect(readFileSync(join(dir, `${fromId}.jsonl`), "utf8")).not.toContain("Forked answer.");
  });
});

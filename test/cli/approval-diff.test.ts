/**
 * An edit or write asked about shows the change it makes to the file as a unified diff (docs/permissions.md,
 * "Asking"): in the question's text, with the changed words marked in colour, and on a real terminal (tmux) where
 * a long diff is cut and `d` shows the rest.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diffLines, fileChangeOf } from "../../src/ui/approval-diff.js";
import { openaiToolCalls } from "../e2e/support.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

function project(files: Record<string, string>): string {
  const dir = tempDir("awl-proj-");
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const SOURCE = ["function total(items) {", "  let sum = 0;", "  for (const item of items) sum += item.price;", "  return sum;", "}", ""].join("\n");

describe("the diff of an edit or write asked about", () => {
  it("is the file's change with three lines of context, not the raw old and new strings", () => {
    const dir = project({ "src/total.js": SOURCE });
    const change = fileChangeOf("edit", { path: "src/total.js", old_string: "item.price;", new_string: "item.price * item.count;" }, undefined, dir)!;
    expect(diffLines(change, false)).toEqual([
      "  @@ -1,5 +1,5 @@",
      "   function total(items) {",
      "     let sum = 0;",
      "  -  for (const item of items) sum += item.price;",
      "  +  for (const item of items) sum += item.price * item.count;",
      "     return sum;",
      "   }",
    ]);
  });

  it("marks the words that changed in a line and its replacement (reverse video in red and green)", () => {
    const dir = project({ "a.txt": "the quick brown fox\n" });
    const change = fileChangeOf("edit", { path: "a.txt", old_string: "quick", new_string: "slow" }, undefined, dir)!;
    const [, removed, added] = diffLines(change, true);
    expect(removed).toBe("  \x1b[31m-the \x1b[7mquick\x1b[27m brown fox\x1b[39m");
    expect(added).toBe("  \x1b[32m+the \x1b[7mslow\x1b[27m brown fox\x1b[39m");
  });

  it("a write shows the whole new file as added, or its change to the file there; an edit that does not fit the file shows none", () => {
    const dir = project({ "old.txt": "one\ntwo\n" });
    const created = fileChangeOf("write", { path: "new.txt", content: "hello\n" }, undefined, dir)!;
    expect(created.created).toBe(true);
    expect(diffLines(created, false)).toEqual(["  @@ -1,0 +1,1 @@", "  +hello"]);
    expect(diffLines(fileChangeOf("write", { path: "old.txt", content: "one\n2\n" }, undefined, dir)!, false)).toEqual(["  @@ -1,2 +1,2 @@", "   one", "  -two", "  +2"]);
    expect(fileChangeOf("edit", { path: "old.txt", old_string: "three", new_string: "3" }, undefined, dir)).toBeUndefined();
    expect(fileChangeOf("read", { path: "old.txt" }, undefined, dir)).toBeUndefined();
  });

  it("shows control characters of the file and the new text as escapes", () => {
    const dir = project({ "a.txt": "safe\n" });
    const change = fileChangeOf("write", { path: "a.txt", content: "safe\x1b[2J\r\n" }, undefined, dir)!;
    expect(diffLines(change, false).join("\n")).toContain("+safe\\e[2J\\r");
  });

  it("in the terminal: an edit's question shows -old and +new lines; a long write is cut and d shows the rest", { timeout: 90_000 }, async () => {
    const dir = project({ "src/total.js": SOURCE });
    const long = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join("\n");
    tty.server.enqueue(
      { body: openaiToolCalls([{ id: "c1", name: "edit", input: { path: "src/total.js", old_string: "item.price;", new_string: "item.price * item.count;" } }]) },
      { body: openaiToolCalls([{ id: "c2", name: "write", input: { path: "long.txt", content: long } }]) },
      openaiAnswer("Done."),
    );
    await tty.start({ cwd: dir, columns: 120, rows: 50 });
    await tty.send("fix the total");
    const asking = await tty.terminal.waitFor(/y allow once/);
    expect(asking).toMatch(/^ {2}- {2}for \(const item of items\) sum \+= item\.price;$/m);
    expect(asking).toMatch(/^ {2}\+ {2}for \(const item of items\) sum \+= item\.price \* item\.count;$/m);
    expect(asking).not.toContain("old_string:");
    await tty.terminal.type("y");
    await tty.terminal.waitFor(/… 22 more lines \(d shows them\)/);
    await tty.terminal.type("d");
    const shown = await tty.terminal.waitFor(/^ {2}\+line 60$/m);
    expect(shown).toMatch(/^ {2}\+line 40$/m);
    await tty.terminal.type("y");
    await tty.terminal.waitFor(/Done\.\n/);
  });
});

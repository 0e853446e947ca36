// std.edit, the bundled `edit` tool: exact, unique replacements that keep line endings and BOM; a diff for the UI.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callTool, replayedCall, textOf, useSandbox } from "./support.js";

const env = useSandbox();
const file = (name: string) => join(env.box.cwd, name);
const errorOf = async (input: unknown) => {
  const { outcome, code } = await callTool(env.box, "edit", input);
  expect(code).toBe(1);
  return outcome.status === "result" && outcome.is_error ? outcome.content : `not an error: ${JSON.stringify(outcome)}`;
};

describe("std.edit", () => {
  it("replaces a unique string, and gives the UI a unified diff", async () => {
    writeFileSync(file("a.py"), "def f():\n    return 1\n\n\ndef g():\n    return 2\n");
    const { outcome } = await callTool(env.box, "edit", { path: "a.py", old_string: "    return 2", new_string: "    x = 2\n    return x" });
    expect(outcome).toMatchObject({ status: "result", is_error: false, content: "Edited a.py: 1 replacement at line 6", summary: "+2 -1" });
    expect(readFileSync(file("a.py"), "utf8")).toBe("def f():\n    return 1\n\n\ndef g():\n    x = 2\n    return x\n");
    expect(outcome.status === "result" && (outcome.details as { diff: string }).diff).toBe(
      ["--- a.py", "+++ a.py", "@@ -3,4 +3,5 @@", " ", " ", " def g():", "-    return 2", "+    x = 2", "+    return x"].join("\n"),
    );
  });

  it("refuses an ambiguous edit with the count and lines, and replace_all replaces every one", async () => {
    writeFileSync(file("b.txt"), "x = 1\ny = 2\nx = 1\n");
    expect(await errorOf({ path: "b.txt", old_string: "x = 1", new_string: "x = 3" })).toBe(
      "old_string occurs 2 times in b.txt (lines 1, 3); add surrounding lines to make it unique, or set replace_all",
    );
    expect(readFileSync(file("b.txt"), "utf8")).toBe("x = 1\ny = 2\nx = 1\n");
    expect(textOf((await callTool(env.box, "edit", { path: "b.txt", old_string: "x = 1", new_string: "x = 3", replace_all: true })).outcome)).toBe(
      "Edited b.txt: 2 replacements",
    );
    expect(readFileSync(file("b.txt"), "utf8")).toBe("x = 3\ny = 2\nx = 3\n");
  });

  it("says where the closest line is when old_string is missing, and refuses empty or unchanged strings", async () => {
    writeFileSync(file("c.js"), "function add(a, b) {\n  return a + b;\n}\n");
    expect(await errorOf({ path: "c.js", old_string: "return a+b;", new_string: "return b + a;" })).toBe(
      "old_string was not found in c.js; the closest is line 2:   return a + b;. Read the file and copy the text exactly",
    );
    expect(await errorOf({ path: "c.js", old_string: "", new_string: "x" })).toBe(
      "old_string is empty: give the exact text to replace (to create or overwrite a whole file, use write)",
    );
    expect(await errorOf({ path: "c.js", old_string: "add", new_string: "add" })).toBe("old_string and new_string are the same: nothing would change");
    expect(await errorOf({ path: "none.js", old_string: "a", new_string: "b" })).toBe("no such file: none.js (to create it, use write)");
    expect(readFileSync(file("c.js"), "utf8")).toBe("function add(a, b) {\n  return a + b;\n}\n");
  });

  it("applies an edit whose old_string differs only in whitespace, when it matches once, and says so", { timeout: 120_000 }, async () => {
    writeFileSync(file("f.py"), "def f(x):\n    if x:   \n        return 1\n    return 2\n");
    // Trailing whitespace in the file, not in old_string.
    expect(textOf((await callTool(env.box, "edit", { path: "f.py", old_string: "    if x:\n        return 1", new_string: "    if x:\n        return 3" })).outcome)).toBe(
      "Edited f.py: 1 replacement at line 2 (old_string matched only when ignoring trailing whitespace)",
    );
    expect(readFileSync(file("f.py"), "utf8")).toBe("def f(x):\n    if x:\n        return 3\n    return 2\n");
    // Indentation lost: new_string is moved by the same amount, so the code stays where it was.
    expect(textOf((await callTool(env.box, "edit", { path: "f.py", old_string: "if x:\n    return 3", new_string: "if x and x > 1:\n    return 4" })).outcome)).toBe(
      "Edited f.py: 1 replacement at line 2 (old_string matched only when ignoring indentation and trailing whitespace; new_string indented by 4 columns to fit)",
    );
    expect(readFileSync(file("f.py"), "utf8")).toBe("def f(x):\n    if x and x > 1:\n        return 4\n    return 2\n");
    // Two places match loosely: refused, with where they are; nothing written.
    writeFileSync(file("g.py"), "  a = 1\n\tb = 2\n    a = 1\n");
    expect(await errorOf({ path: "g.py", old_string: "\ta = 1", new_string: "\ta = 0" })).toBe(
      "old_string was not found in g.py; ignoring indentation and trailing whitespace it occurs 2 times (lines 1, 3): copy the text exactly from the file, with surrounding lines to make it unique",
    );
    expect(readFileSync(file("g.py"), "utf8")).toBe("  a = 1\n\tb = 2\n    a = 1\n");
  });

  it("cuts a long diff to the block's height and says how much is left", async () => {
    writeFileSync(file("long.txt"), Array.from({ length: 30 }, (_, i) => `l${i}\n`).join(""));
    const turn = await replayedCall(env.box, env.server, "edit", { path: "long.txt", old_string: "l", new_string: "L", replace_all: true });
    expect(turn.content).toBe("Edited long.txt: 30 replacements");
    // Print mode's blocks are 10 lines high: the hunk header, 8 lines of the diff, and what is left of its 61 lines.
    expect(turn.stderr).toBe(["✓ edit long.txt", "  @@ -1,30 +1,30 @@", "  -l0", "  +L0", "  -l1", "  +L1", "  -l2", "  +L2", "  -l3", "  +L3", "  … 52 more lines", ""].join("\n"));
  });

  it("edits a CRLF file with a BOM without damage", async () => {
    writeFileSync(file("w.txt"), Buffer.from("\ufeffone\r\ntwo\r\nthree\r\n"));
    const { outcome } = await callTool(env.box, "edit", { path: "w.txt", old_string: "one\ntwo", new_string: "one\n2\n2b" });
    expect(outcome).toMatchObject({ is_error: false, content: "Edited w.txt: 1 replacement at line 1", details: { diff: "--- w.txt\n+++ w.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n+2b\n three" } });
    expect(readFileSync(file("w.txt")).toString("binary")).toBe(Buffer.from("\ufeffone\r\n2\r\n2b\r\nthree\r\n").toString("binary"));
  });

  it("edits a file of mixed line endings as it is, its diff free of carriage returns", async () => {
    writeFileSync(file("m.txt"), "one\r\ntwo\nthree\r\n");
    const { outcome } = await callTool(env.box, "edit", { path: "m.txt", old_string: "two\nthree", new_string: "2\n3" });
    expect(outcome).toMatchObject({ is_error: false, details: { diff: "--- m.txt\n+++ m.txt\n@@ -1,3 +1,3 @@\n one\n-two\n-three\n+2\n+3" } });
    expect(readFileSync(file("m.txt"), "utf8")).toBe("one\r\n2\n3\r\n");
  });

  it("says why text shown with U+FFFD cannot be matched in a file that is not UTF-8, and edits around it", async () => {
    writeFileSync(file("latin.txt"), Buffer.from("caf\xe9 au lait\nsecond\n", "latin1"));
    expect(await errorOf({ path: "latin.txt", old_string: "caf\uFFFD au lait", new_string: "coffee" })).toMatch(
      /^old_string was not found in latin.txt; the closest is line 1: .*\. old_string holds U\+FFFD \(\uFFFD\) where the file has bytes that are not UTF-8, which edit cannot match: edit around those bytes \(old_string without them\)/,
    );
    expect(textOf((await callTool(env.box, "edit", { path: "latin.txt", old_string: " au lait", new_string: " noir" })).outcome)).toBe("Edited latin.txt: 1 replacement at line 1");
    expect(readFileSync(file("latin.txt")).toString("latin1")).toBe("caf\xe9 noir\nsecond\n");
  });

  it("answers a model's call in a turn, its block titled with the path and rendering the diff", async () => {
    writeFileSync(file("d.md"), "# Title\n");
    const turn = await replayedCall(env.box, env.server, "edit", { path: "d.md", old_string: "# Title", new_string: "# Better title" });
    expect(turn.content).toBe("Edited d.md: 1 replacement at line 1");
    expect(turn.stderr).toBe(["✓ edit d.md", "  @@ -1,1 +1,1 @@", "  -# Title", "  +# Better title", ""].join("\n"));
    expect(readFileSync(file("d.md"), "utf8")).toBe("# Better title\n");
  });
});

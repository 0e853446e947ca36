// std.edit, the bundled `edit` tool: exact, unique replacements that keep line endings and BOM; a diff for the UI.
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callTool, replayedCall, SEVERAL_CALLS, textOf, useSandbox } from "./support.js";

const env = useSandbox();
const file = (name: string) => join(env.box.cwd, name);
const errorOf = async (input: unknown) => {
  const { outcome, code } = await callTool(env.box, "edit", input);
  expect(code).toBe(1);
  return outcome.status === "result" && outcome.is_error ? outcome.content : `not an error: ${JSON.stringify(outcome)}`;
};

/** `old` with a unified diff applied, checking each hunk's context, removed lines and counts against it. */
function applyDiff(old: string, diff: string): string {
  const lines = old.split("\n");
  const out: string[] = [];
  let at = 0;
  const body = diff.split("\n");
  expect(body.slice(0, 2)).toEqual([expect.stringMatching(/^--- /), expect.stringMatching(/^\+\+\+ /)]);
  let i = 2;
  while (i < body.length) {
    const hunk = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(body[i]!);
    expect(hunk, `not a hunk header: ${body[i]}`).not.toBeNull();
    const [oldStart, oldCount, newCount] = [Number(hunk![1]), Number(hunk![2]), Number(hunk![4])];
    while (at < oldStart - 1) out.push(lines[at++]!);
    let olds = 0;
    let news = 0;
    for (i++; i < body.length && !body[i]!.startsWith("@@"); i++) {
      const [kind, text] = [body[i]![0], body[i]!.slice(1)];
      if (kind !== "+") {
        expect(lines[at], `diff line ${i}`).toBe(text);
        at++;
        olds++;
      }
      if (kind !== "-") {
        out.push(text);
        news++;
      }
    }
    expect([olds, news]).toEqual([oldCount, newCount]);
  }
  while (at < lines.length) out.push(lines[at++]!);
  return out.join("\n");
}

describe("std.edit", () => {
  it("replaces a unique string keeping the file's mode, and gives the UI a unified diff", async () => {
    writeFileSync(file("a.py"), "def f():\n    return 1\n\n\ndef g():\n    return 2\n");
    chmodSync(file("a.py"), 0o751);
    const { outcome } = await callTool(env.box, "edit", { path: "a.py", old_string: "    return 2", new_string: "    x = 2\n    return x" });
    expect(outcome).toMatchObject({ status: "result", is_error: false, content: "Edited a.py: 1 replacement at line 6", summary: "+2 -1" });
    expect(readFileSync(file("a.py"), "utf8")).toBe("def f():\n    return 1\n\n\ndef g():\n    x = 2\n    return x\n");
    expect(statSync(file("a.py")).mode & 0o777).toBe(0o751);
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

  it("gives a diff that turns the old file into the new one, for edits of any shape", SEVERAL_CALLS, async () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const words = ["alpha", "beta", "", "  gamma", "delta()", "}"];
    for (let round = 0; round < 8; round++) {
      const text = Array.from({ length: 30 }, (_, i) => `${words[random(words.length)]}${i % 4 === 0 ? "" : ` ${i}`}`).join("\n") + (round % 3 ? "\n" : "");
      // old_string: from a random place to a random later one (mid-line or not), unique in the file.
      let old = "";
      while (old.trim() === "" || text.indexOf(old) !== text.lastIndexOf(old)) {
        const from = random(text.length - 10);
        old = text.slice(from, from + 1 + random(60));
      }
      const fresh = ["X", "X\nY", "", "\n", `${old}\nZ`, old.toUpperCase() + "!"][round % 6]!;
      writeFileSync(file("r.txt"), text);
      const { outcome } = await callTool(env.box, "edit", { path: "r.txt", old_string: old, new_string: fresh });
      const after = readFileSync(file("r.txt"), "utf8");
      expect(after, `round ${round}`).toBe(text.replace(old, fresh));
      expect(outcome.status === "result" && applyDiff(text, (outcome.details as { diff: string }).diff), `round ${round}`).toBe(after);
    }
  });

  it("cuts a long diff to the block's height and says how much is left", async () => {
    writeFileSync(file("long.txt"), Array.from({ length: 30 }, (_, i) => `l${i}\n`).join(""));
    const turn = await replayedCall(env.box, env.server, "edit", { path: "long.txt", old_string: "l", new_string: "L", replace_all: true });
    expect(turn.content).toBe("Edited long.txt: 30 replacements");
    // Print mode's blocks are 10 lines high: the hunk header, 8 lines of the diff, and what is left of its 61 lines.
    expect(turn.stderr).toBe(["✓ edit long.txt", "  @@ -1,30 +1,30 @@", "  -l0", "  +L0", "  -l1", "  +L1", "  -l2", "  +L2", "  -l3", "  +L3", "  … 52 more lines", ""].join("\n"));
  });

  it("keeps the first 2000 lines of a very long diff, counting the rest, and the whole count in the summary", async () => {
    writeFileSync(file("many.txt"), Array.from({ length: 3000 }, (_, i) => `x ${i}\n`).join(""));
    const { outcome } = await callTool(env.box, "edit", { path: "many.txt", old_string: "x", new_string: "y", replace_all: true });
    expect(outcome).toMatchObject({ is_error: false, content: "Edited many.txt: 3000 replacements", summary: "+3000 -3000" });
    const diff = (outcome.status === "result" && (outcome.details as { diff: string }).diff) || "";
    const lines = diff.split("\n");
    expect(lines).toHaveLength(2001);
    expect(lines.slice(0, 5)).toEqual(["--- many.txt", "+++ many.txt", "@@ -1,3000 +1,3000 @@", "-x 0", "+y 0"]);
    expect(lines.at(-1)).toBe("… 4003 more lines of the diff"); // 2 + 1 + 6000 lines in all
    expect(readFileSync(file("many.txt"), "utf8")).toBe(Array.from({ length: 3000 }, (_, i) => `y ${i}\n`).join(""));
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

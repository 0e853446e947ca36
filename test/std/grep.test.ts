// std.grep and std.find, the bundled search tools: with ripgrep and without it (the same matches), .gitignore
// respected, globs and types, caps with a count of what was left out, a regex that does not compile.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { callTool, replayedCall, SEVERAL_CALLS, textOf, useSandbox } from "./support.js";

const env = useSandbox();
const hasRipgrep = (() => {
  try {
    execFileSync("rg", ["--version"]);
    return true;
  } catch {
    return false;
  }
})();

function tree(files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const path = join(env.box.cwd, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
}

const PROJECT = {
  ".gitignore": "build/\n*.log\n",
  "src/app.ts": "const greeting = 'hello';\nexport function hello() {\n  return greeting;\n}\n",
  "src/util.py": "def hello():\n    return 'HELLO'\n",
  "src/deep/more.ts": "// hello again\n",
  "build/out.js": "hello from the build\n",
  "debug.log": "hello in a log\n",
  ".hidden/secret.txt": "hello hidden\n",
  "README.md": "Say hello.\n",
};

/** PATH without ripgrep: the fallback runs. */
const NO_RG = { env: { PATH: "/nonexistent" } };

describe("std.grep", () => {
  it("finds the same matches with ripgrep and with its fallback, respecting .gitignore", async () => {
    tree(PROJECT);
    execFileSync("git", ["init", "-q"], { cwd: env.box.cwd });
    const expected = ["README.md:1:Say hello.", "src/app.ts:1:const greeting = 'hello';", "src/app.ts:2:export function hello() {", "src/deep/more.ts:1:// hello again", "src/util.py:1:def hello():"];
    const run = async (args: unknown, extra: { env?: Record<string, string> } = {}) => {
      const result = await env.box.awl(["tool", "call", "grep", JSON.stringify(args)], extra);
      expect(result.code, result.stderr).toBe(0);
      return result.stdout.trim().split("\n").filter((l) => l !== "--");
    };
    const fallback = await run({ pattern: "hello" }, NO_RG);
    expect(fallback).toEqual(expected);
    if (hasRipgrep) expect(await run({ pattern: "hello" })).toEqual(expected);
    for (const args of [{ pattern: "HELLO", ignore_case: true, type: "py" }, { pattern: "hel+o", glob: "*.ts", context: 1 }, { pattern: "greeting", path: "src/app.ts" }]) {
      const withFallback = await run(args, NO_RG);
      expect(withFallback.length).toBeGreaterThan(0);
      if (hasRipgrep) expect(await run(args)).toEqual(withFallback);
    }
  }, 120_000); // eight runs of awl

  it("shows context lines, caps the matches and counts what it left out", async () => {
    tree({ "a.txt": Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? `match ${i}` : `other ${i}`)).join("\n") + "\n" });
    for (const extra of [{}, NO_RG]) {
      const result = await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "^match", limit: 2, context: 1 })], extra);
      expect(result.stdout).toBe(
        ["a.txt:1:match 0", "a.txt-2-other 1", "a.txt-3-other 2", "a.txt:4:match 3", "a.txt-5-other 4", "[2 of 10 matching lines shown, in 1 files; narrow with path, glob or type, or raise limit]", ""].join("\n"),
      );
    }
  });

  it("says so for no match, a regex that does not compile, an unknown type and a missing path", SEVERAL_CALLS, async () => {
    tree({ "a.txt": "abc\n" });
    expect(textOf((await callTool(env.box, "grep", { pattern: "zzz" })).outcome)).toBe("No matches.");
    const bad = await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "(unclosed" })], NO_RG);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("the regex does not compile: /(unclosed/: Unterminated group");
    if (hasRipgrep) expect((await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "(unclosed" })])).stderr).toContain("regex parse error");
    expect((await callTool(env.box, "grep", { pattern: "a", type: "cobol" })).outcome).toMatchObject({ is_error: true, content: expect.stringMatching(/^unknown file type "cobol"; the types are c, cpp, /) });
    expect((await callTool(env.box, "grep", { pattern: "a", path: "nope" })).outcome).toMatchObject({ is_error: true, content: "no such file or folder: nope" });
  });

  it("without ripgrep, names the files too large to search instead of answering a bare 'No matches.'", async () => {
    tree({ "small.txt": "nothing here\n" });
    // 65 MB (sparse: no time spent writing it) with the word at its end: ripgrep would find it, the fallback skips it.
    const big = join(env.box.cwd, "big.txt");
    writeFileSync(big, "");
    truncateSync(big, 65 * 1024 * 1024);
    appendFileSync(big, "hello\n");
    const none = await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "hello" })], NO_RG);
    expect(none.stdout).toBe("No matches in the files searched.\n[not searched (ripgrep is not installed): big.txt (65 MB, larger than the 64 MB searched)]\n");
    const some = await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "nothing" })], NO_RG);
    expect(some.stdout).toBe("small.txt:1:nothing here\n[not searched (ripgrep is not installed): big.txt (65 MB, larger than the 64 MB searched)]\n");
  });

  it("answers a model's call in a turn", async () => {
    tree({ "notes.txt": "one\ntwo\n" });
    const turn = await replayedCall(env.box, env.server, "grep", { pattern: "tw" });
    expect(turn.content).toBe("notes.txt:2:two");
  });
});

describe("std.find", () => {
  it("finds files by glob, respecting .gitignore, newest first or by path", SEVERAL_CALLS, async () => {
    tree(PROJECT);
    const old = new Date("2020-01-01");
    utimesSync(join(env.box.cwd, "src/app.ts"), old, old);
    expect(textOf((await callTool(env.box, "find", { pattern: "*.ts" })).outcome)).toBe("src/deep/more.ts\nsrc/app.ts");
    expect(textOf((await callTool(env.box, "find", { pattern: "**/*", sort: "path" })).outcome)).toBe(
      ["README.md", "src/app.ts", "src/deep/more.ts", "src/util.py"].join("\n"),
    );
    expect(textOf((await callTool(env.box, "find", { pattern: "*.ts", path: "src/deep" })).outcome)).toBe("src/deep/more.ts");
    expect(textOf((await callTool(env.box, "find", { pattern: "*.rb" })).outcome)).toBe("No files match *.rb.");
  });

  it("caps the list and counts what it left out", async () => {
    tree(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${String(i).padStart(2, "0")}.txt`, ""])));
    const text = textOf((await callTool(env.box, "find", { pattern: "*.txt", sort: "path", limit: 10 })).outcome);
    expect(text.split("\n").at(-1)).toBe("[10 of 12 files shown; narrow the pattern or path, or raise limit]");
  });
});

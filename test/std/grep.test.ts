// std.grep and std.find, the bundled search tools: with ripgrep and without it (the same matches, the same output),
// .gitignore respected, globs and types, regex dialects, caps with a count of what was left out, files that cannot
// be searched, a regex that does not compile, and grep's block.
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, mkdirSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiText, openaiToolCalls, openSandboxToNobody, providerEnv } from "../e2e/support.js";
import { callTool, replayedCall, SEVERAL_CALLS, textOf, useSandbox, writeTree } from "./support.js";

const env = useSandbox();

const tree = (files: Record<string, string>) => writeTree(env.box.cwd, files);

const PROJECT = {
  ".gitignore": "build/\n*.log\n",
  "src/app.ts": "const greeting = 'hello';\nexport function hello() {\n  return greeting;\n}\n",
  "src/util.py": "def hello():\n    return 'HELLO'\n",
  "src/deep/more.ts": "// hello again\n",
  "src/deep/view.tsx": "<p>hello 42</p>\n",
  "build/out.js": "hello from the build\n",
  "debug.log": "hello in a log\n",
  ".hidden/secret.txt": "hello hidden\n",
  "README.md": "Say hello.\n",
};

/** PATH without ripgrep: the fallback runs. */
const NO_RG = { env: { PATH: "/nonexistent" } };

/** `awl tool call grep ARGS` (text): its output lines, `--` separators left out. */
async function grepLines(args: unknown, extra: { env?: Record<string, string>; asNobody?: boolean } = {}): Promise<string[]> {
  const result = await env.box.awl(["tool", "call", "grep", JSON.stringify(args)], extra);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim().split("\n").filter((l) => l !== "--");
}

describe("std.grep", () => {
  it("has ripgrep to compare with (.ci/run installs Debian's ripgrep; install it to run these tests)", () => {
    expect(spawnSync("rg", ["--version"]).status).toBe(0);
  });

  it("finds the same matches with ripgrep and with its fallback, respecting .gitignore", { timeout: 180_000 }, async () => {
    tree(PROJECT);
    execFileSync("git", ["init", "-q"], { cwd: env.box.cwd });
    const expected = ["README.md:1:Say hello.", "src/app.ts:1:const greeting = 'hello';", "src/app.ts:2:export function hello() {", "src/deep/more.ts:1:// hello again", "src/deep/view.tsx:1:<p>hello 42</p>", "src/util.py:1:def hello():"];
    expect(await grepLines({ pattern: "hello" }, NO_RG)).toEqual(expected);
    expect(await grepLines({ pattern: "hello" })).toEqual(expected);
    const cases: [unknown, string[]][] = [
      [{ pattern: "HELLO", ignore_case: true, type: "py" }, ["src/util.py:1:def hello():", "src/util.py:2:    return 'HELLO'"]],
      [{ pattern: "hel+o", glob: "*.ts", context: 1 }, ["src/app.ts:1:const greeting = 'hello';", "src/app.ts:2:export function hello() {", "src/app.ts-3-  return greeting;", "src/deep/more.ts:1:// hello again"]],
      [{ pattern: "greeting", path: "src/app.ts" }, ["src/app.ts:1:const greeting = 'hello';", "src/app.ts:3:  return greeting;"]],
      // A glob with a `/` is matched against the path, one without against the name at any depth.
      [{ pattern: "hello", glob: "src/deep/*.ts" }, ["src/deep/more.ts:1:// hello again"]],
      [{ pattern: "hello", glob: "src/**/*.{ts,tsx}" }, ["src/app.ts:1:const greeting = 'hello';", "src/app.ts:2:export function hello() {", "src/deep/more.ts:1:// hello again", "src/deep/view.tsx:1:<p>hello 42</p>"]],
      [{ pattern: "hello", path: "src/deep" }, ["src/deep/more.ts:1:// hello again", "src/deep/view.tsx:1:<p>hello 42</p>"]],
    ];
    for (const [args, lines] of cases) {
      expect(await grepLines(args, NO_RG), JSON.stringify(args)).toEqual(lines);
      expect(await grepLines(args), JSON.stringify(args)).toEqual(lines);
    }
  });

  it("reads ripgrep's regex syntax the same without ripgrep: inline flags, POSIX classes, look-around, backreferences", { timeout: 180_000 }, async () => {
    tree({ "a.txt": "Hello World\nhello 42\nbook keeper\nnothing\n" });
    const cases: [string, string[]][] = [
      ["(?i)^HELLO", ["a.txt:1:Hello World", "a.txt:2:hello 42"]],
      ["[[:digit:]]+", ["a.txt:2:hello 42"]],
      ["^[[:upper:]][[:lower:]]+ ", ["a.txt:1:Hello World"]],
      // Look-around and backreferences: ripgrep runs them with its PCRE2 engine (its default one refuses them).
      ["hello(?= 42)", ["a.txt:2:hello 42"]],
      ["([a-z])\\1", ["a.txt:1:Hello World", "a.txt:2:hello 42", "a.txt:3:book keeper"]],
      ["(?P<w>W)orld", ["a.txt:1:Hello World"]],
    ];
    for (const [pattern, lines] of cases) {
      expect(await grepLines({ pattern }, NO_RG), pattern).toEqual(lines);
      expect(await grepLines({ pattern }), pattern).toEqual(lines);
    }
  });

  it("separates groups with `--` only when it shows context lines, as grep -C does", SEVERAL_CALLS, async () => {
    tree({ "a.txt": "one match\nb\nc\nd\ntwo match\n", "b.txt": "three match\n" });
    for (const extra of [NO_RG, {}]) {
      const plain = await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "match" })], extra);
      expect(plain.stdout.trim().split("\n")).toEqual(["a.txt:1:one match", "a.txt:5:two match", "b.txt:1:three match"]);
      const around = await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "match", context: 1 })], extra);
      expect(around.stdout.trim().split("\n")).toEqual(["a.txt:1:one match", "a.txt-2-b", "--", "a.txt-4-d", "a.txt:5:two match", "--", "b.txt:1:three match"]);
    }
  });

  it("shows context lines, caps the matches and counts what it left out, cuts long lines", SEVERAL_CALLS, async () => {
    tree({ "a.txt": Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? `match ${i}` : `other ${i}`)).join("\n") + "\n", "b.txt": `long ${"é".repeat(600)}\n` });
    for (const extra of [{}, NO_RG]) {
      const result = await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "^match", limit: 2, context: 1 })], extra);
      expect(result.stdout).toBe(
        ["a.txt:1:match 0", "a.txt-2-other 1", "a.txt-3-other 2", "a.txt:4:match 3", "a.txt-5-other 4", "[2 of 10 matching lines shown, in 1 file; narrow with path, glob or type, or raise limit]", ""].join("\n"),
      );
      // Cut at 500 bytes, at a character: "long " and 247 whole "é".
      expect((await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "^long" })], extra)).stdout).toBe(`b.txt:1:long ${"é".repeat(247)} …\n`);
    }
  });

  it("searches without ripgrep when the rg on PATH cannot run", async () => {
    tree({ "a.txt": "needle\n" });
    const bin = join(env.box.root, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "rg"), "not a program\n", { mode: 0o644 });
    const run = await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "needle" })], { env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(run.stdout).toBe("a.txt:1:needle\n");
  });

  it("says so for no match, a regex that does not compile, an unknown type and a missing path", SEVERAL_CALLS, async () => {
    tree({ "a.txt": "abc\n" });
    expect(textOf((await callTool(env.box, "grep", { pattern: "zzz" })).outcome)).toBe("No matches.");
    const bad = await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "(unclosed" })], NO_RG);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("the regex does not compile: /(unclosed/: Unterminated group");
    expect((await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "(unclosed" })])).stderr).toContain("the regex does not compile: regex parse error:\n    (unclosed\n    ^\nerror: unclosed group");
    expect((await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "a(?i)b" })], NO_RG)).stderr).toContain("(inline flags such as (?i) work only at the regex's start; or set ignore_case)");
    expect((await callTool(env.box, "grep", { pattern: "a", type: "cobol" })).outcome).toMatchObject({ is_error: true, content: expect.stringMatching(/^unknown file type "cobol"; the types are c, cpp, /) });
    expect((await callTool(env.box, "grep", { pattern: "a", path: "nope" })).outcome).toMatchObject({ is_error: true, content: "no such file or folder: nope" });
  });

  it("with a ripgrep that has no PCRE2, a look-around says what to do instead (not ripgrep's --pcre2 advice)", async () => {
    // A stand-in for such a ripgrep: its own messages, word for word.
    const bin = join(env.box.root, "bin");
    mkdirSync(bin);
    writeFileSync(
      join(bin, "rg"),
      `#!/bin/sh
case " $* " in
  *" --pcre2 "*) echo "PCRE2 is not available in this build of ripgrep." >&2 ;;
  *) printf 'regex parse error:\\n    a(?=b)\\n     ^^^\\nerror: look-around, including look-ahead and look-behind, is not supported\\n\\nConsider enabling PCRE2 with the --pcre2 flag, which can handle backreferences\\nand look-around.\\n' >&2 ;;
esac
exit 2
`,
    );
    chmodSync(join(bin, "rg"), 0o755);
    const run = await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "a(?=b)" })], { env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "the regex does not compile: regex parse error:\n    a(?=b)\n     ^^^\nerror: look-around, including look-ahead and look-behind, is not supported\n(this ripgrep has no PCRE2: write the regex without look-around or backreferences)",
    );
    expect(run.stderr).not.toContain("--pcre2");
  });

  it("names the files it could not read, with ripgrep and without, instead of a bare 'No matches.'", SEVERAL_CALLS, async () => {
    tree({ "a.txt": "needle\n", "secret.txt": "needle\n" });
    chmodSync(join(env.box.cwd, "secret.txt"), 0);
    openSandboxToNobody(env.box); // as root, the search runs as nobody, so the file is unreadable to it
    const as = { asNobody: true };
    expect(await grepLines({ pattern: "needle" }, as)).toEqual(["a.txt:1:needle", "[not searched: secret.txt (Permission denied)]"]);
    expect(await grepLines({ pattern: "needle" }, { ...as, ...NO_RG })).toEqual(["a.txt:1:needle", "[not searched (ripgrep is not installed): secret.txt (Permission denied)]"]);
    expect(await grepLines({ pattern: "haystack" }, as)).toEqual(["No matches in the files searched.", "[not searched: secret.txt (Permission denied)]"]);
    expect(await grepLines({ pattern: "haystack" }, { ...as, ...NO_RG })).toEqual(["No matches in the files searched.", "[not searched (ripgrep is not installed): secret.txt (Permission denied)]"]);
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

  it("answers a model's call in a turn, with ripgrep and without", SEVERAL_CALLS, async () => {
    tree({ "notes.txt": "one\ntwo\n" });
    expect((await replayedCall(env.box, env.server, "grep", { pattern: "tw" })).content).toBe("notes.txt:2:two");
    expect((await replayedCall(env.box, env.server, "grep", { pattern: "tw" }, [], NO_RG.env)).content).toBe("notes.txt:2:two");
  });

  it("draws its block: the pattern (and folder) as the title, the count as the body; a bad regex's error", SEVERAL_CALLS, async () => {
    tree({ "src/notes.txt": "one\ntwo\ntwenty\n" });
    env.server.enqueue(
      { body: openaiToolCalls([{ id: "g1", name: "grep", input: { pattern: "tw" } }, { id: "g2", name: "grep", input: { pattern: "one", path: "src" } }, { id: "g3", name: "grep", input: { pattern: "(" } }]) },
      { body: openaiText("done") },
    );
    const run = await env.box.awl(["-p", "go", "--no-session", "--allow", "grep"], { env: providerEnv("openai", env.server.url) });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^✓ grep tw\n {2}2 matching lines in 1 file\n✓ grep one in src\n {2}1 matching line in 1 file\n✗ grep \(\n {2}the regex does not compile: regex parse error: .*\n$/);
  });
});

describe("std.find", () => {
  it("finds files by glob, respecting .gitignore, newest first or by path", SEVERAL_CALLS, async () => {
    tree(PROJECT);
    const old = new Date("2020-01-01");
    utimesSync(join(env.box.cwd, "src/app.ts"), old, old);
    expect(textOf((await callTool(env.box, "find", { pattern: "*.ts" })).outcome)).toBe("src/deep/more.ts\nsrc/app.ts");
    expect(textOf((await callTool(env.box, "find", { pattern: "**/*", sort: "path" })).outcome)).toBe(
      ["README.md", "src/app.ts", "src/deep/more.ts", "src/deep/view.tsx", "src/util.py"].join("\n"),
    );
    expect(textOf((await callTool(env.box, "find", { pattern: "*.ts", path: "src/deep" })).outcome)).toBe("src/deep/more.ts");
    // A glob with a `/` is matched against the whole path, not the name.
    expect(textOf((await callTool(env.box, "find", { pattern: "src/*.ts", sort: "path" })).outcome)).toBe("src/app.ts");
    expect(textOf((await callTool(env.box, "find", { pattern: "src/**/*.ts", sort: "path" })).outcome)).toBe("src/app.ts\nsrc/deep/more.ts");
    expect(textOf((await callTool(env.box, "find", { pattern: "*.rb" })).outcome)).toBe("No files match *.rb.");
  });

  it("caps the list and counts what it left out", async () => {
    tree(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${String(i).padStart(2, "0")}.txt`, ""])));
    const text = textOf((await callTool(env.box, "find", { pattern: "*.txt", sort: "path", limit: 10 })).outcome);
    expect(text.split("\n").at(-1)).toBe("[10 of 12 files shown; narrow the pattern or path, or raise limit]");
  });
});

// std.find, the bundled `find` tool, and the globs of `awl.fs.walk` it shares with grep's fallback: globs with a
// `/` match the path from the search's folder, hidden files only when the pattern names them; through `awl tool
// call` and a replayed model turn (its block's title and render).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callTool, replayedCall, SEVERAL_CALLS, textOf, useSandbox, writeTree } from "./support.js";

const env = useSandbox();
const NO_RG = { env: { PATH: "/nonexistent" } };

const tree = (files: Record<string, string>) => writeTree(env.box.cwd, files);

const PROJECT = {
  "src/b.ts": "hello\n",
  "src/a/x.ts": "hello\n",
  "src/a/y.py": "hello\n",
  "top.ts": "hello\n",
  ".env": "A=1\n",
  ".github/workflows/ci.yml": "on: push\n",
};

const found = async (input: Record<string, unknown>) => textOf((await callTool(env.box, "find", { sort: "path", ...input })).outcome);

describe("std.find globs", () => {
  it("matches a glob with a '/' against the path from the folder searched, a leading './' or not", SEVERAL_CALLS, async () => {
    tree(PROJECT);
    expect(await found({ pattern: "src/*.ts" })).toBe("src/b.ts");
    expect(await found({ pattern: "./src/*.ts" })).toBe("src/b.ts");
    expect(await found({ pattern: "src/**/*.ts" })).toBe("src/a/x.ts\nsrc/b.ts");
    expect(await found({ pattern: "a/*", path: "src" })).toBe("src/a/x.ts\nsrc/a/y.py");
    // The folder repeated in the pattern: no match, and what to write instead.
    expect(await found({ pattern: "src/**/*.ts", path: "src" })).toBe("No files match src/**/*.ts in src. (the pattern is matched from inside src: try **/*.ts)");
    // Without a '/', the name at any depth.
    expect(await found({ pattern: "*.ts" })).toBe("src/a/x.ts\nsrc/b.ts\ntop.ts");
  });

  it("skips hidden files unless the pattern names one", SEVERAL_CALLS, async () => {
    tree(PROJECT);
    expect(await found({ pattern: "*.yml" })).toBe("No files match *.yml.");
    expect(await found({ pattern: ".github/workflows/*.yml" })).toBe(".github/workflows/ci.yml");
    expect(await found({ pattern: ".env" })).toBe(".env");
  });

  it("stops at 40 KB, saying a higher limit would not help", async () => {
    tree(Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`d/file_with_a_rather_long_name_number_${String(i).padStart(4, "0")}.txt`, ""])));
    const lines = (await found({ pattern: "*.txt", limit: 5000 })).split("\n");
    expect(lines.join("\n").length).toBeLessThan(40_000);
    expect(lines.at(-1)).toBe(`[${lines.length - 1} of 3000 files shown (the 40 KB limit); narrow the pattern or path]`);
    expect(lines.at(-2)).toBe(`d/file_with_a_rather_long_name_number_${String(lines.length - 2).padStart(4, "0")}.txt`);
  });

  it("refuses an empty pattern, and a file given as the folder, saying what to give", SEVERAL_CALLS, async () => {
    tree(PROJECT);
    expect((await callTool(env.box, "find", { pattern: "" })).outcome).toMatchObject({
      is_error: true,
      content: "pattern is empty: give a glob such as '*.ts' or 'src/**/*.py'",
    });
    expect((await callTool(env.box, "find", { pattern: "*.ts", path: "top.ts" })).outcome).toMatchObject({
      is_error: true,
      content: "top.ts is not a folder; find searches folders",
    });
  });

  it("shows a name that is not UTF-8 with \\xNN escapes, which read takes back", SEVERAL_CALLS, async () => {
    writeFileSync(Buffer.concat([Buffer.from(join(env.box.cwd, "n")), Buffer.from([0xff]), Buffer.from("ame.txt")]), "bytes\n");
    tree({ "plain.txt": "x\n" });
    expect(await found({ pattern: "*.txt" })).toBe("n\\xFFame.txt\nplain.txt");
    expect(textOf((await callTool(env.box, "read", { path: "n\\xFFame.txt" })).outcome)).toBe("1\tbytes");
  });

  it("gives grep's fallback the same globs with a '/' as ripgrep", SEVERAL_CALLS, async () => {
    tree(PROJECT);
    for (const extra of [{}, NO_RG]) {
      const run = await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "hello", glob: "src/**/*.ts" })], extra);
      expect(run.stdout).toBe("src/a/x.ts:1:hello\nsrc/b.ts:1:hello\n");
    }
  });

  it("answers a model's call in a turn, its block titled with the pattern and showing the count", async () => {
    tree(PROJECT);
    const turn = await replayedCall(env.box, env.server, "find", { pattern: "*.py", path: "src" });
    expect(turn.code).toBe(0);
    expect(turn.content).toBe("src/a/y.py");
    expect(turn.stderr).toBe("✓ find *.py in src\n  1 file\n");
  });
});

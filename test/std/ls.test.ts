// std.ls, the bundled `ls` tool: through `awl tool call` and through a replayed model turn.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callTool, replayedCall, SEVERAL_CALLS, textOf, useSandbox } from "./support.js";

const env = useSandbox();

describe("std.ls", () => {
  it("lists names sorted, folders with '/', file sizes, dotfiles, and symlinks", async () => {
    mkdirSync(join(env.box.cwd, "src"));
    writeFileSync(join(env.box.cwd, "b.txt"), "x".repeat(2048));
    writeFileSync(join(env.box.cwd, ".env"), "A=1\n");
    symlinkSync("b.txt", join(env.box.cwd, "link"));
    symlinkSync("missing", join(env.box.cwd, "dangling"));
    const { outcome, code } = await callTool(env.box, "ls", {});
    expect(code).toBe(0);
    expect(textOf(outcome)).toBe([".env  4 B", "b.txt  2.0 KB", "dangling  (symlink to a missing target)", "link  2.0 KB (symlink)", "src/"].join("\n"));
    expect(outcome).toMatchObject({ is_error: false, summary: "5 entries" });
  });

  it("caps the listing at limit and says how to see the rest", async () => {
    for (let i = 0; i < 12; i++) writeFileSync(join(env.box.cwd, `f${String(i).padStart(2, "0")}`), "");
    const text = textOf((await callTool(env.box, "ls", { limit: 10 })).outcome);
    expect(text.split("\n").slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `f${String(i).padStart(2, "0")}  0 B`));
    expect(text.split("\n")[10]).toBe("[10 of 12 entries shown (limit=10); use limit=12, or find with a glob, or grep, to narrow it down]");
  });

  it("stops at 40 KB, saying a higher limit would not help", async () => {
    mkdirSync(join(env.box.cwd, "d"));
    for (let i = 0; i < 3000; i++) writeFileSync(join(env.box.cwd, "d", `file_with_a_rather_long_name_number_${String(i).padStart(4, "0")}.txt`), "");
    const text = textOf((await callTool(env.box, "ls", { path: "d", limit: 5000 })).outcome);
    expect(text.length).toBeLessThan(40_000);
    const lines = text.split("\n");
    expect(lines.at(-1)).toBe(`[${lines.length - 1} of 3000 entries shown (the 40 KB limit); use find with a glob, or grep, to narrow it down]`);
    expect(lines.at(-2)).toBe(`file_with_a_rather_long_name_number_${String(lines.length - 2).padStart(4, "0")}.txt  0 B`);
  });

  it("answers a file, a missing path and an empty folder clearly", SEVERAL_CALLS, async () => {
    writeFileSync(join(env.box.cwd, "a.txt"), "hi");
    mkdirSync(join(env.box.cwd, "empty"));
    const file = await callTool(env.box, "ls", { path: "a.txt" });
    expect(file).toMatchObject({ code: 1, outcome: { is_error: true, content: "a.txt is a file, not a directory; use read to see a file" } });
    expect((await callTool(env.box, "ls", { path: "nope" })).outcome).toMatchObject({ is_error: true, content: "no such directory: nope" });
    expect(textOf((await callTool(env.box, "ls", { path: "empty" })).outcome)).toBe("(empty directory)");
  });

  it("writes names that are not UTF-8 as \\xNN escapes", async () => {
    writeFileSync(Buffer.concat([Buffer.from(join(env.box.cwd, "caf")), Buffer.from([0xe9])]), "");
    expect(textOf((await callTool(env.box, "ls", {})).outcome)).toBe("caf\\xE9  0 B");
  });

  it("is declared read-only, and --no-std-tools leaves it out", async () => {
    const listing = JSON.parse((await env.box.awl(["tools", "--json"])).stdout);
    expect(listing.tools).toContainEqual(expect.objectContaining({ name: "ls", extension: "std.ls", kinds: ["read"] }));
    expect(JSON.parse((await env.box.awl(["tools", "--json", "--no-std-tools"])).stdout).tools).toEqual([]);
  });

  it("answers a model's call in a turn, its block titled with the path and showing the entries", async () => {
    mkdirSync(join(env.box.cwd, "docs"));
    writeFileSync(join(env.box.cwd, "docs", "a.md"), "# a\n");
    const turn = await replayedCall(env.box, env.server, "ls", { path: "docs" });
    expect(turn.code).toBe(0);
    expect(turn.content).toBe("a.md  4 B");
    expect(turn.stderr).toBe("✓ ls docs\n  a.md  4 B\n");
    expect(env.server.requests[0]!.json().tools.map((t: { function: { name: string } }) => t.function.name)).toContain("ls");
  });
});

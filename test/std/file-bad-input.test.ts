// The file tools (read, write, edit, ls) given paths no file can have, `~`, a file where a folder should be, and files
// too big to edit: each a clear result the model can act on, and nothing written where it was not asked to be.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callTool, SEVERAL_CALLS, textOf, useSandbox } from "./support.js";

const env = useSandbox();
const at = (...parts: string[]) => join(env.box.cwd, ...parts);

/** The text of a failed call (exit code 1, an error result). */
async function errorOf(name: string, input: unknown): Promise<string> {
  const { outcome, code } = await callTool(env.box, name, input);
  expect(code).toBe(1);
  return outcome.status === "result" && outcome.is_error ? outcome.content : `not an error: ${JSON.stringify(outcome)}`;
}

describe("file tools, paths no file can have", () => {
  it("refuse an empty path and one holding a NUL byte, saying why", SEVERAL_CALLS, async () => {
    writeFileSync(at("a.txt"), "a\n");
    expect(await errorOf("read", { path: "" })).toBe("path is empty: give the path of a file");
    expect(await errorOf("write", { path: "", content: "x" })).toBe("path is empty: give the path of a file");
    expect(await errorOf("edit", { path: "", old_string: "a", new_string: "b" })).toBe("path is empty: give the path of a file");
    expect(await errorOf("write", { path: "a\u0000b", content: "x" })).toBe("path a\\0b holds a NUL byte (\\0), which no file name can");
    expect(await errorOf("read", { path: "a.txt\u0000" })).toBe("path a.txt\\0 holds a NUL byte (\\0), which no file name can");
    expect(await errorOf("ls", { path: "sub\u0000" })).toBe("cannot list sub\\0: the path holds a NUL byte (\\0), which no file name can");
    expect(readdirSync(env.box.cwd)).toEqual(["a.txt"]);
  });

  it("refuse to write below a file, naming it, and create nothing", SEVERAL_CALLS, async () => {
    writeFileSync(at("a.txt"), "a\n");
    expect(await errorOf("write", { path: "a.txt/b/c.txt", content: "x" })).toBe(`cannot write a.txt/b/c.txt: ${at("a.txt/b/c.txt")}: ${at("a.txt")} is a file, not a folder`);
    expect(readFileSync(at("a.txt"), "utf8")).toBe("a\n");
    expect(readdirSync(env.box.cwd)).toEqual(["a.txt"]);
  });

  it("take ~ as the home folder, as a shell does", SEVERAL_CALLS, async () => {
    writeFileSync(join(env.box.home, "notes.txt"), "far away\n");
    expect(textOf((await callTool(env.box, "read", { path: "~/notes.txt" })).outcome)).toBe("1\tfar away");
    expect(textOf((await callTool(env.box, "write", { path: "~/new.txt", content: "x\n" })).outcome)).toBe(
      `Created ~/new.txt (${join(env.box.home, "new.txt")}, outside the workspace): 1 line (2 B)`,
    );
    expect(readFileSync(join(env.box.home, "new.txt"), "utf8")).toBe("x\n");
    expect(textOf((await callTool(env.box, "ls", { path: "~" })).outcome)).toContain("notes.txt  9 B");
    expect(readdirSync(env.box.cwd)).toEqual([]);
  });
});

describe("edit, files too big for it", () => {
  it("refuses a file over 64 MB before reading it, and one too big to change in memory, writing nothing", SEVERAL_CALLS, async () => {
    writeFileSync(at("sparse.log"), "needle\n");
    execFileSync("truncate", ["-s", "65M", at("sparse.log")]);
    expect(await errorOf("edit", { path: "sparse.log", old_string: "needle", new_string: "pin" })).toBe(
      "sparse.log is 65.0 MB, over the 64.0 MB edit changes; change a file this big with bash (sed, a script)",
    );
    expect(readFileSync(at("sparse.log")).subarray(0, 7).toString()).toBe("needle\n");
    // 60 MB of short lines: the text, its line table and the result do not fit the extension's 256 MB together.
    const big = Buffer.from("some line of text here for testing\n".repeat(1_700_000) + "UNIQUE\n");
    writeFileSync(at("big.txt"), big);
    expect(await errorOf("edit", { path: "big.txt", old_string: "UNIQUE", new_string: "DONE" })).toBe(
      "big.txt (56.7 MB) is too big for edit to change in memory; nothing was written. Change it with bash (sed, a script)",
    );
    expect(statSync(at("big.txt")).size).toBe(big.length);
    expect(readFileSync(at("big.txt")).subarray(-7).toString()).toBe("UNIQUE\n");
    expect(readdirSync(env.box.cwd).sort()).toEqual(["big.txt", "sparse.log"]);
  });
});

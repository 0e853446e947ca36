// The std tools given bad input (issue 9 "Bad input"): paths that leave the workspace, symlinks out of it, names and
// contents that are not UTF-8, a 2 GB file, FIFOs and devices, a command that prints 100 MB or never stops. Each
// gets a clear result the model can act on; nothing is written where it was not asked to be; awl never stalls.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AWL } from "../e2e/support.js";
import { callTool, SEVERAL_CALLS, textOf, useSandbox } from "./support.js";

const env = useSandbox();
const at = (...parts: string[]) => join(env.box.cwd, ...parts);
const NO_RG = { env: { PATH: "/nonexistent" } };

/** The text of a failed call. */
async function errorOf(name: string, input: unknown): Promise<string> {
  const { outcome } = await callTool(env.box, name, input);
  return outcome.status === "result" && outcome.is_error ? outcome.content : `not an error: ${JSON.stringify(outcome)}`;
}

/** `awl tool call` under /usr/bin/time: the outcome and the process's peak RSS in MB. */
async function callMeasured(name: string, input: unknown): Promise<{ text: string; peakMb: number }> {
  const child = spawn("/usr/bin/time", ["-f", "peak-rss-kb %M", process.execPath, AWL, "tool", "call", name, JSON.stringify(input), "--json"], {
    cwd: env.box.cwd,
    env: env.box.env(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  await new Promise((resolve) => child.on("close", resolve));
  const peak = /peak-rss-kb (\d+)/.exec(stderr);
  expect(peak, stderr).not.toBeNull();
  return { text: textOf(JSON.parse(stdout)), peakMb: Number(peak![1]) / 1024 };
}

describe("std tools, paths that leave the workspace", () => {
  it("say where a write through `..` or a symlink really lands, and write nothing else", SEVERAL_CALLS, async () => {
    const outside = join(env.box.root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "target.txt"), "old\n");
    symlinkSync(join(outside, "target.txt"), at("link.txt"));
    symlinkSync(outside, at("away"));

    expect(textOf((await callTool(env.box, "write", { path: "../outside/new.txt", content: "a\n" })).outcome)).toBe(
      `Created ../outside/new.txt (${join(outside, "new.txt")}, outside the workspace): 1 line (2 B)`,
    );
    expect(textOf((await callTool(env.box, "write", { path: "link.txt", content: "new\n" })).outcome)).toBe(
      `Overwrote link.txt (a symlink to ${join(outside, "target.txt")}, outside the workspace): 1 line (4 B)`,
    );
    expect(textOf((await callTool(env.box, "edit", { path: "away/target.txt", old_string: "new", new_string: "newer" })).outcome)).toBe(
      `Edited away/target.txt: 1 replacement at line 1 (${join(outside, "target.txt")}, outside the workspace)`,
    );
    // The symlink is written through, never replaced by a file; nothing else appeared on either side.
    expect(readFileSync(join(outside, "target.txt"), "utf8")).toBe("newer\n");
    expect(lstatSync(at("link.txt")).isSymbolicLink()).toBe(true);
    expect(readdirSync(outside).sort()).toEqual(["new.txt", "target.txt"]);
    expect(readdirSync(env.box.cwd).sort()).toEqual(["away", "link.txt"]);
  });

  it("add nothing for a path that stays inside; reads follow the path given, and ls marks symlinks", SEVERAL_CALLS, async () => {
    const outside = join(env.box.root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "target.txt"), "far\n");
    symlinkSync(join(outside, "target.txt"), at("link.txt"));
    expect(textOf((await callTool(env.box, "write", { path: "sub/../in.txt", content: "b" })).outcome)).toBe("Created sub/../in.txt: 1 line (1 B)");
    expect(textOf((await callTool(env.box, "read", { path: "../outside/target.txt" })).outcome)).toBe("1\tfar");
    expect(textOf((await callTool(env.box, "ls", {})).outcome)).toBe("in.txt  1 B\nlink.txt  4 B (symlink)");
  });
});

describe("std tools, names and contents that are not UTF-8", () => {
  it("grep shows bytes that are not UTF-8 as U+FFFD, with ripgrep and without", SEVERAL_CALLS, async () => {
    writeFileSync(at("latin.txt"), "caf\xe9 au lait\n", "latin1");
    for (const extra of [{}, NO_RG]) {
      const found = await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "lait" })], extra);
      expect(found.stdout).toBe("latin.txt:1:caf\uFFFD au lait\n");
    }
  });

  it("show names that are not UTF-8 as \\xNN and take them back for reading", SEVERAL_CALLS, async () => {
    const file = Buffer.from(`${at("n")}\xffame.txt`, "latin1");
    writeFileSync(file, "caf\xe9 au lait\n", "latin1");
    expect(textOf((await callTool(env.box, "ls", {})).outcome)).toBe("n\\xFFame.txt  13 B");
    for (const extra of [{}, NO_RG]) {
      expect((await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "lait" })], extra)).stdout).toBe("n\\xFFame.txt:1:caf\uFFFD au lait\n");
    }
    expect(textOf((await callTool(env.box, "read", { path: "n\\xFFame.txt" })).outcome)).toMatch(/^1\tcaf\uFFFD au lait\n\[awl: /);
    // Writing to such a name is refused (awl writes to UTF-8 paths only), clearly, and the file stays as it was.
    expect(await errorOf("edit", { path: "n\\xFFame.txt", old_string: "lait", new_string: "the" })).toBe(
      "cannot write n\\xFFame.txt: awl writes only to paths that are valid UTF-8",
    );
    expect(readFileSync(file).toString("latin1")).toBe("caf\xe9 au lait\n");
  });
});

describe("std tools, huge and special files", () => {
  it("read pages of a 2 GB file without loading it", SEVERAL_CALLS, async () => {
    writeFileSync(at("huge.log"), Array.from({ length: 1000 }, (_, i) => `entry ${i + 1}\n`).join(""));
    execFileSync("truncate", ["-s", "2G", at("huge.log")]); // sparse: the rest reads as NUL bytes
    expect(textOf((await callTool(env.box, "read", { path: "huge.log", offset: 500, limit: 3 })).outcome)).toBe(
      "500\tentry 500\n501\tentry 501\n502\tentry 502\n[lines 500-502; read on with offset=503]",
    );
    // From its start: the last line is 2 GB long and comes cut, never whole.
    const start = textOf((await callTool(env.box, "read", { path: "huge.log" })).outcome).split("\n");
    expect(start.slice(0, 2)).toEqual(["1\tentry 1", "2\tentry 2"]);
    expect(start[999]).toBe("1000\tentry 1000");
    expect(start[1000]).toBe(`1001\t${"\0".repeat(2000)} … [line cut at 2000 characters]`);
    expect(start[1001]).toBe("[lines 1-1001; read on with offset=1002]");
    expect(textOf((await callTool(env.box, "ls", {})).outcome)).toBe("huge.log  2.0 GB");
  });

  it("refuse FIFOs and devices at once, never blocking on them", SEVERAL_CALLS, async () => {
    execFileSync("mkfifo", [at("pipe")]);
    expect(await errorOf("read", { path: "/dev/zero" })).toBe("/dev/zero is a char device, not a regular file; read only reads files");
    expect(await errorOf("write", { path: "pipe", content: "x" })).toBe("pipe is a fifo, not a regular file; write only writes files");
    expect(await errorOf("edit", { path: "pipe", old_string: "a", new_string: "b" })).toBe("pipe is a fifo, not a file");
    expect(await errorOf("edit", { path: "/dev/null", old_string: "a", new_string: "b" })).toBe("/dev/null is a char device, not a file");
  });

  it("search and list past a FIFO without blocking on it", SEVERAL_CALLS, async () => {
    execFileSync("mkfifo", [at("pipe")]);
    writeFileSync(at("a.txt"), "needle\n");
    for (const extra of [{}, NO_RG]) {
      const found = await env.box.awl(["tool", "call", "grep", JSON.stringify({ pattern: "needle" })], extra);
      expect(found.stdout).toBe("a.txt:1:needle\n");
    }
    expect(textOf((await callTool(env.box, "find", { pattern: "*" , sort: "path" })).outcome)).toBe("a.txt\npipe");
    expect(textOf((await callTool(env.box, "ls", {})).outcome)).toBe("a.txt  7 B\npipe  (fifo)");
  });
});

describe("std.bash, commands that flood or never stop", () => {
  it("keeps the head and tail of 100 MB of output, saves the first 64 MB of it (the spill cap, said), and stays small", SEVERAL_CALLS, async () => {
    const { text, peakMb } = await callMeasured("bash", { command: "yes 0123456789012345678901234567890123456789012345678 | head -c 100000000" });
    const lines = text.split("\n");
    expect(lines[0]).toBe("0123456789012345678901234567890123456789012345678");
    expect(lines.at(-1)).toBe("[exit code 0]");
    const notice = lines.find((l) => l.startsWith("[… "))!;
    expect(notice).toMatch(/^\[… \d+ lines \([\d.]+ MB\) cut \(2000000 lines, 95\.4 MB in all\); only its first 64\.0 MB is in (\/.+\.txt) \(the file is capped at 64\.0 MB\)\]$/);
    const spill = /is in (\S+) \(/.exec(notice)![1]!;
    expect(statSync(spill).size).toBe(64 * 1024 * 1024);
    expect(text.length).toBeLessThan(40_000);
    // awl held the head and the tail, never the whole output: ~90 MB for `true`, ~220 MB for 100 MB or 400 MB of output.
    expect(peakMb).toBeLessThan(300);
  });

  it("ends a command that never stops at its timeout, output and all", async () => {
    const { outcome } = await callTool(env.box, "bash", { command: "yes", timeout: 1 });
    const text = textOf(outcome);
    expect(text.split("\n")[0]).toBe("y");
    expect(text).toMatch(/\n\[… \d+ lines \([\d.]+ [KMG]?B\) cut \(\d+ lines, [\d.]+ [KMG]?B in all\); (?:all of it|only its first [\d.]+ MB) is in .+\]\n(y\n)+\[timed out after 1 s: the command and everything it started were killed\]$/);
    expect(existsSync(at("nohup.out"))).toBe(false);
  });
});

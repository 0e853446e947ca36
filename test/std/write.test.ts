// std.write, the bundled `write` tool: atomic, parents created, mode kept; through `awl tool call` and a turn.
import { spawn } from "node:child_process";
import { chmodSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AWL } from "../e2e/support.js";
import { callTool, replayedCall, textOf, useSandbox } from "./support.js";

const env = useSandbox();

describe("std.write", () => {
  it("creates a file with its parent folders, and overwrites one keeping its mode", async () => {
    expect(textOf((await callTool(env.box, "write", { path: "a/b/new.txt", content: "one\ntwo\n" })).outcome)).toBe("Created a/b/new.txt: 2 lines (8 B)");
    expect(readFileSync(join(env.box.cwd, "a/b/new.txt"), "utf8")).toBe("one\ntwo\n");
    const script = join(env.box.cwd, "run.sh");
    writeFileSync(script, "#!/bin/sh\n");
    chmodSync(script, 0o751);
    expect(textOf((await callTool(env.box, "write", { path: "run.sh", content: "#!/bin/sh\necho hi\n" })).outcome)).toBe("Overwrote run.sh: 2 lines (18 B)");
    expect(statSync(script).mode & 0o777).toBe(0o751);
    expect(readdirSync(env.box.cwd).sort()).toEqual(["a", "run.sh"]); // no temp file left
  });

  it("writes through a symlink to its target, and refuses a directory", async () => {
    writeFileSync(join(env.box.cwd, "real.txt"), "old");
    symlinkSync("real.txt", join(env.box.cwd, "link.txt"));
    await callTool(env.box, "write", { path: "link.txt", content: "new" });
    expect(readFileSync(join(env.box.cwd, "real.txt"), "utf8")).toBe("new");
    expect(statSync(join(env.box.cwd, "link.txt")).isFile()).toBe(true);
    expect((await callTool(env.box, "write", { path: ".", content: "x" })).outcome).toMatchObject({ is_error: true, content: ". is a directory; give a file path" });
  });

  it("leaves the old content or the new, never a mix, when awl is killed mid-write", async () => {
    const target = join(env.box.cwd, "data.txt");
    const old = "old\n".repeat(500_000);
    const fresh = "new\n".repeat(500_000);
    const input = join(env.box.cwd, "input.json");
    writeFileSync(input, JSON.stringify({ path: "data.txt", content: fresh }));
    for (let round = 0; round < 6; round++) {
      writeFileSync(target, old);
      const child = spawn(process.execPath, [AWL, "tool", "call", "write", "-"], { cwd: env.box.cwd, env: env.box.env(), stdio: ["pipe", "ignore", "ignore"] });
      child.stdin.on("error", () => {}); // killed before it read all of its input
      child.stdin.end(readFileSync(input));
      const closed = new Promise((resolve) => child.on("close", resolve));
      await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 1500));
      child.kill("SIGKILL");
      await closed;
      const now = readFileSync(target, "utf8");
      expect(now === old || now === fresh, `round ${round}: a mix of old and new (${now.length} chars)`).toBe(true);
    }
  });

  it("answers a model's call in a turn", async () => {
    const turn = await replayedCall(env.box, env.server, "write", { path: "hello.txt", content: "hi\n" });
    expect(turn.code).toBe(0);
    expect(turn.content).toBe("Created hello.txt: 1 line (3 B)");
    expect(readFileSync(join(env.box.cwd, "hello.txt"), "utf8")).toBe("hi\n");
  });
});

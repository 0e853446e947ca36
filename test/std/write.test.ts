// std.write, the bundled `write` tool: atomic, parents created, mode kept; through `awl tool call` and a turn.
import { spawn } from "node:child_process";
import { chmodSync, readFileSync, readdirSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AWL } from "../e2e/support.js";
import { callTool, replayedCall, SEVERAL_CALLS, textOf, useSandbox } from "./support.js";

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

  it("leaves the old content or the new, never a mix, when awl is killed mid-write", SEVERAL_CALLS, async () => {
    const target = join(env.box.cwd, "data.txt");
    const old = "old\n".repeat(8_000_000); // 32 MB: its write takes long enough to be caught in the act
    const fresh = "new\n".repeat(8_000_000);
    const input = Buffer.from(JSON.stringify({ path: "data.txt", content: fresh }));
    const writing = () => readdirSync(env.box.cwd).filter((name) => name.startsWith(".data.txt.awl-") && name.endsWith(".tmp"));
    let caughtWriting = 0;
    for (let round = 0; round < 6; round++) {
      writeFileSync(target, old);
      for (const stale of writing()) unlinkSync(join(env.box.cwd, stale));
      const child = spawn(process.execPath, [AWL, "tool", "call", "write", "-"], { cwd: env.box.cwd, env: env.box.env(), stdio: ["pipe", "ignore", "ignore"] });
      child.stdin.on("error", () => {}); // killed before it read all of its input
      child.stdin.end(input);
      let exited = false;
      const closed = new Promise((resolve) => child.on("close", resolve)).then(() => (exited = true));
      if (round % 2 === 0) {
        // Any moment: before the write, during it or after it.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 1500));
      } else {
        // Once the temp file is there (the write under way), then at a random moment within the next few ms.
        while (!exited && writing().length === 0) await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      }
      child.kill("SIGKILL");
      await closed;
      const now = readFileSync(target, "utf8");
      expect(now === old || now === fresh, `round ${round}: a mix of old and new (${now.length} chars)`).toBe(true);
      if (writing().length > 0) {
        caughtWriting++; // killed between the temp file's creation and the rename: the old content stands
        expect(now, `round ${round}`).toBe(old);
      }
    }
    // At least one kill landed mid-write (else this test would prove nothing).
    expect(caughtWriting).toBeGreaterThan(0);
  });

  it("answers a model's call in a turn, its block titled with the path and showing what was written", async () => {
    const turn = await replayedCall(env.box, env.server, "write", { path: "hello.txt", content: "hi\n" });
    expect(turn.code).toBe(0);
    expect(turn.content).toBe("Created hello.txt: 1 line (3 B)");
    expect(turn.stderr).toBe("✓ write hello.txt\n  created, 1 line (3 B)\n  hi\n");
    // Longer content: its first lines, as many as the block's 10 lines hold, and how many more.
    const long = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n");
    const second = await replayedCall(env.box, env.server, "write", { path: "long.txt", content: long });
    expect(second.stderr).toBe(["✓ write long.txt", "  created, 20 lines (150 B)", ...Array.from({ length: 8 }, (_, i) => `  line ${i + 1}`), "  … 12 more lines", ""].join("\n"));
    expect(readFileSync(join(env.box.cwd, "hello.txt"), "utf8")).toBe("hi\n");
  });
});

// Programs a Lua handler runs (awl.spawn, io.popen, os.execute): all of their output reaches the handler, however
// late it reads, and a background program that keeps the pipes open does not hold the call.
import { describe, expect, it } from "vitest";
import { ChildProcesses } from "../../../src/extensions/lua/processes.js";
import type { ReadReply } from "../../../src/extensions/lua/protocol.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

/** Not yet exited and reaped. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return true;
}

async function until(what: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!what()) {
    if (Date.now() > deadline) throw new Error("gave up waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Reads a spawned program to its end: its stdout bytes and how it ended. */
async function readAll(processes: ChildProcesses, handle: number): Promise<{ bytes: number; end: ReadReply["end"] }> {
  let bytes = 0;
  for (;;) {
    const reply = await processes.read(handle);
    for (const chunk of reply.chunks) if (chunk.stream === "stdout") bytes += chunk.data.length;
    if (reply.end) return { bytes, end: reply.end };
  }
}

describe("output of the programs Lua handlers run", () => {
  it("a program that exits with its last output still in the pipe, read late, loses none of it", async () => {
    const processes = new ChildProcesses(env, () => {});
    // More than awl queues before it stops reading (4 MB), and the rest fits in the pipe and the stream's buffer:
    // the program can exit while its last bytes wait there, unread.
    const size = 4 * 1024 * 1024 + 120 * 1024;
    processes.spawn({ handle: 1, callId: 1, argv: ["/bin/sh", "-c", `head -c ${size} /dev/zero`], cwd: process.cwd() });
    const { pid } = processes.pid(1);
    await until(() => !alive(pid));
    // The handler is busy elsewhere a while after the program ended (a loaded machine).
    await new Promise((r) => setTimeout(r, 500));
    expect(await readAll(processes, 1)).toEqual({ bytes: size, end: { code: 0, how: "exit" } });
    processes.forget(1);
  }, 90_000);

  it("a background program holding the pipes open, silent, does not hold the end (awl.spawn and io.popen)", async () => {
    const processes = new ChildProcesses(env, () => {});
    const command = "sleep 120 & echo $!";
    processes.spawn({ handle: 1, callId: 1, argv: ["/bin/sh", "-c", command], cwd: process.cwd() });
    let text = "";
    for (;;) {
      const reply = await processes.read(1);
      for (const chunk of reply.chunks) text += Buffer.from(chunk.data).toString();
      if (reply.end) break;
    }
    const ran = await processes.run({ callId: 2, extension: "t", shell: command, cwd: process.cwd(), stdout: "capture", stderr: "capture" });
    const sleepers = [Number(text.trim()), Number(Buffer.from(ran.stdout).toString().trim())];
    try {
      expect(ran).toMatchObject({ code: 0, how: "exit" });
      // Both ended while the background programs still run.
      expect(sleepers.map(alive)).toEqual([true, true]);
    } finally {
      for (const pid of sleepers) if (pid > 0) process.kill(pid, "SIGKILL");
    }
  }, 90_000);
});

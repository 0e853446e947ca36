// Spill files through the built awl and the real `bash` tool (issue 22 item 7f): a file that could not be written
// whole (a full disk, here a file size limit: the same ENOSPC-like failure of each write past it) or that reached
// the cap says how much of the output it holds; the model is never told that all of it is there.
import { spawn } from "node:child_process";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { AWL, openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

/** Runs `awl -p` (under `ulimit -f KB` when given) with one bash call; the result the model got. */
async function bashResult(command: string, fileLimitKb?: number): Promise<string> {
  server.enqueue({ body: openaiToolCalls([{ id: "b1", name: "bash", input: { command } }]) }, { body: openaiText("done") });
  // The model's window is told, so the long second request sends nothing but the tool result.
  mkdirSync(join(box.home, ".config/awl"), { recursive: true });
  writeFileSync(join(box.home, ".config/awl/config.json"), JSON.stringify({ models: { "test-model": { context_window: 200_000 } } }));
  const limit = fileLimitKb === undefined ? "" : `ulimit -f ${fileLimitKb}; `;
  let stderr = "";
  const code = await new Promise<number | null>((done) => {
    const child = spawn("/bin/bash", ["-c", `${limit}exec "$0" "$@"`, process.execPath, AWL, "-p", "go", "--allow", "bash", "--no-session"], { cwd: box.cwd, env: box.env(providerEnv("openai", server.url)), stdio: ["ignore", "ignore", "pipe"] });
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    child.on("close", done);
  });
  expect(code, stderr).toBe(0);
  const messages = server.requests.at(-1)!.json().messages as { role: string; content: string }[];
  return messages.find((m) => m.role === "tool")!.content;
}

describe("spill files", () => {
  it("on a full disk the result says how much of the output the file holds, never that all of it is there", async () => {
    // 3 MB of output; each file may hold 1 MB.
    const result = await bashResult("head -c 3000000 /dev/zero | tr '\\0' 'a' | fold -w 100", 1024);
    expect(result).not.toContain("all of it is in");
    const m = /only its first (\S+ \S+) is in (\S+) \(the file could not be written further: [^)]+\)/.exec(result);
    expect(m, result.slice(-2000)).not.toBeNull();
    expect(statSync(m![2]!).size).toBeLessThanOrEqual(1024 * 1024);
  }, 60_000);

  it("with room, the same output is in the file whole and the result says so", async () => {
    const result = await bashResult("head -c 3000000 /dev/zero | tr '\\0' 'a' | fold -w 100");
    const m = /all of it is in (\S+)\]/.exec(result);
    expect(m, result.slice(-2000)).not.toBeNull();
    expect(statSync(m![1]!).size).toBe(3000000 + 29999); // fold ends the last line without a newline
  }, 60_000);
});

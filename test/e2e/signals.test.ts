// SIGTERM and SIGHUP to awl: the programs tool handlers started (in their own process groups, out of the
// signal's reach) are killed, and awl exits 128 + the signal number. Through the built CLI.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { AWL, openaiToolCalls, providerEnv, sandbox, type Sandbox } from "./support.js";

/** Running, and not a zombie waiting to be reaped (awl has exited; init reaps its orphans when it likes). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** A killed process needs to be scheduled to die: on a loaded machine, give it up to 5 s. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 250 && running(pid); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  return !running(pid);
}

let box: Sandbox;
let server: ReplayServer;
beforeEach(async () => {
  box = sandbox();
  server = await startReplayServer();
});
afterEach(async () => {
  await server.close();
  box.remove();
});

/** Starts awl with a tool that runs `sleep 100` through io.popen; resolves once the sleep runs, with its pid. */
async function startWithSleeper(args: string[], env: Record<string, string> = {}) {
  const ready = join(box.root, "ready");
  box.extension(
    "popen.lua",
    `awl.register_tool("popensleep", { type = "object" }, function()
  local f = io.popen("echo $$ > ${ready}.tmp && mv ${ready}.tmp ${ready} && exec sleep 100")
  return f:read("a")
end)\n`,
  );
  const child = spawn(process.execPath, [AWL, ...args], { cwd: box.cwd, env: box.env(env), stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  while (!existsSync(ready)) {
    if (child.exitCode !== null) throw new Error(`awl exited early with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const sleeper = Number(readFileSync(ready, "utf8"));
  expect(running(sleeper)).toBe(true);
  return { child, exited, sleeper };
}

it("SIGTERM during awl tool call kills the handler's program and exits 143", async () => {
  const { child, exited, sleeper } = await startWithSleeper(["tool", "--trust-project", "call", "popensleep"]);
  child.kill("SIGTERM");
  expect(await exited).toBe(143);
  expect(await gone(sleeper)).toBe(true);
});

it("SIGHUP during a tool call of awl -p kills the handler's program and exits 129", async () => {
  server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "popensleep", input: {} }]) });
  const { child, exited, sleeper } = await startWithSleeper(["--trust-project", "--allow", "*", "-p", "go"], providerEnv("openai", server.url));
  child.kill("SIGHUP");
  expect(await exited).toBe(129);
  expect(await gone(sleeper)).toBe(true);
});

it("SIGTERM during a tool call of awl -p kills the handler's program and exits 143", async () => {
  server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "popensleep", input: {} }]) });
  const { child, exited, sleeper } = await startWithSleeper(["--trust-project", "--allow", "*", "-p", "go"], providerEnv("openai", server.url));
  child.kill("SIGTERM");
  expect(await exited).toBe(143);
  expect(await gone(sleeper)).toBe(true);
});

// The exec sandbox (--sandbox, bubblewrap; .ci/run installs it): a command can write the workspace and the temp
// folder and nothing else, cannot reach a local port, and dies with its call even when it left its process group;
// a missing bwrap stops awl with a clear message; a config file can turn the sandbox on, and
// `sandbox_auto_allow` lets sandboxed commands run unasked.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { callTool, replayedCall, textOf, useSandbox } from "../std/support.js";
import { openaiText, openaiToolCalls, providerEnv } from "../e2e/support.js";
import { tempDir } from "../support/temp-dir.js";

const env = useSandbox();
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

/** A folder outside both the workspace and the temp folder (the test's home lies in the temp folder). */
function outsideFolder(): string {
  return tempDir("awl-outside-", { parent: "/var/tmp" });
}

/** A TCP server on a free local port that counts the connections it gets. */
async function listener(): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.end("hello\n");
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return { port: address.port, connections: () => connections };
}

/** Pids of the processes whose command line is exactly `argv`. */
function processesRunning(argv: readonly string[]): number[] {
  const wanted = `${argv.join("\0")}\0`;
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8") === wanted) found.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

describe("--sandbox", () => {
  it("a command writes the workspace and the temp folder, never a file outside them", async () => {
    const outside = join(outsideFolder(), "outside.txt");
    const temp = join(tempDir("awl-sandbox-"), "temp.txt");
    const command = `echo in > inside.txt && echo tmp > ${temp} && echo ok; echo out > ${outside}`;
    const { outcome } = await callTool(env.box, "bash", { command }, ["--sandbox"]);
    const text = textOf(outcome);
    expect(text).toContain("ok\n");
    expect(text).toMatch(/outside\.txt: Read-only file system\n\[exit code 1\]$/);
    expect(readFileSync(join(env.box.cwd, "inside.txt"), "utf8")).toBe("in\n");
    expect(readFileSync(temp, "utf8")).toBe("tmp\n");
    expect(existsSync(outside)).toBe(false);
  });

  it("a command cannot connect to a local port; without the sandbox the same command can", async () => {
    const { port, connections } = await listener();
    const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3`;
    const boxed = textOf((await callTool(env.box, "bash", { command }, ["--sandbox"])).outcome);
    expect(boxed).toContain("Connection refused");
    expect(connections()).toBe(0);
    const open = textOf((await callTool(env.box, "bash", { command })).outcome);
    expect(open).toBe("hello\n[exit code 0]");
    expect(connections()).toBe(1);
  });

  it("kills with the call a child that left the command's process group (setsid)", async () => {
    // Lengths of their own, so no other test's process is taken for these.
    const child = ["sleep", "871"];
    const { outcome } = await callTool(env.box, "bash", { command: `setsid ${child.join(" ")} & sleep 872`, timeout: 1 }, ["--sandbox"]);
    expect(textOf(outcome)).toContain("[timed out after 1 s");
    for (let i = 0; i < 100 && processesRunning(child).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(processesRunning(child)).toEqual([]);
  });

  it("without bwrap on PATH awl refuses to run anything and says how to get it", async () => {
    const marker = join(env.box.cwd, "ran");
    const run = await env.box.awl(["tool", "call", "bash", JSON.stringify({ command: `touch ${marker}` }), "--sandbox"], { env: { PATH: join(env.box.root, "empty") } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--sandbox needs bubblewrap (the bwrap program), which is not on PATH: install it (Debian/Ubuntu: apt-get install bubblewrap");
    expect(existsSync(marker)).toBe(false);
  });

  it("a kernel that refuses bubblewrap's namespaces stops awl with a message saying so; nothing runs", async () => {
    const bin = join(env.box.root, "refusing-bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n", { mode: 0o755 });
    const marker = join(env.box.cwd, "ran");
    const run = await env.box.awl(["tool", "call", "bash", JSON.stringify({ command: `touch ${marker}` }), "--sandbox"], { env: { PATH: bin } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--sandbox: bubblewrap cannot start a sandbox here (bwrap: No permissions to create new namespace); the kernel may refuse unprivileged user namespaces");
    expect(run.stderr).toContain("awl runs nothing without the sandbox you asked for");
    expect(existsSync(marker)).toBe(false);
  });

  it("permissions.sandbox in the user config turns it on for a model's calls; sandbox_auto_allow runs them unasked", async () => {
    mkdirSync(join(env.box.home, ".config", "awl"), { recursive: true });
    const config = join(env.box.home, ".config", "awl", "config.json");
    writeFileSync(config, JSON.stringify({ permissions: { sandbox: true } }));
    const outside = join(outsideFolder(), "outside.txt");
    const boxed = await replayedCall(env.box, env.server, "bash", { command: `echo out > ${outside}` });
    expect(boxed.content).toContain("Read-only file system");
    expect(existsSync(outside)).toBe(false);

    // Without --allow: asked (denied, no terminal) until sandbox_auto_allow lets it run inside the sandbox.
    const run = async () => {
      env.server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "echo hi" } }]) }, { body: openaiText("done") });
      await env.box.awl(["-p", "go", "--no-session"], { env: providerEnv("openai", env.server.url) });
      return env.server.requests.at(-1)!.json().messages.find((m: { role: string }) => m.role === "tool").content as string;
    };
    expect(await run()).toContain("permission denied");
    writeFileSync(config, JSON.stringify({ permissions: { sandbox: true, sandbox_auto_allow: true } }));
    expect(await run()).toBe("hi\n[exit code 0]");
  }, 120_000);
});

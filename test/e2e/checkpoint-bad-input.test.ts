// Checkpoints and rewind on bad input, through the built awl: a workspace over the file limit, unreadable files,
// sockets and pipes, a store that cannot be written, a rewind killed with SIGKILL halfway, a session file whose
// parent links are broken. The turn always runs; nothing half-written is ever used.
import { spawn, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { AWL, openaiText, openaiToolCalls, openSandboxToNobody, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

const dataDir = (): string => join(box.home, ".local", "share", "awl");
const run = (prompt: string, extra: string[] = [], asNobody = false) =>
  box.awl(["--allow", "*", "-p", prompt, "--output-format", "json", ...extra], { env: providerEnv("openai", server.url), asNobody });
function config(value: unknown): void {
  mkdirSync(join(box.home, ".config", "awl"), { recursive: true });
  writeFileSync(join(box.home, ".config", "awl", "config.json"), JSON.stringify(value));
}

describe("checkpoints on bad input", () => {
  it("a workspace over checkpoints.max_files gets no checkpoint, says so naming the setting, and the turn runs", async () => {
    // 1 000 000 files, simulated by a lower limit: scanning stops at the limit, whatever the size.
    config({ checkpoints: { max_files: 5 } });
    for (let i = 0; i < 12; i++) writeFileSync(join(box.cwd, `f${i}.txt`), `${i}\n`);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "write", input: { path: "f0.txt", content: "changed\n" } }]) }, { body: openaiText("Done.") });
    const ran = await run("change f0");
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout).messages.at(-1).content[0].text).toBe("Done.");
    expect(readFileSync(join(box.cwd, "f0.txt"), "utf8")).toBe("changed\n");
    expect(ran.stderr).toMatch(/checkpoint: .*more than 5 files.*checkpoints\.max_files/);
    const rewind = await box.awl(["rewind", "--to", "1", "--code", "--yes"]);
    expect(rewind.code).toBe(1);
    expect(rewind.stderr).toContain("incomplete");
    expect(readFileSync(join(box.cwd, "f0.txt"), "utf8")).toBe("changed\n");
  });

  it("unreadable files, sockets and named pipes are skipped and named; the turn runs and a restore leaves them alone", async () => {
    writeFileSync(join(box.cwd, "a.txt"), "alpha\n");
    writeFileSync(join(box.cwd, "secret.txt"), "root only\n");
    chmodSync(join(box.cwd, "secret.txt"), 0o600);
    execFileSync("mkfifo", [join(box.cwd, "pipe")]);
    const socket = createServer();
    await new Promise<void>((done) => socket.listen(join(box.cwd, "agent.sock"), done));
    // As another user when the tests run as root, so the 0600 file really cannot be read.
    const asNobody = process.getuid?.() === 0;
    if (asNobody) {
      openSandboxToNobody(box);
      chmodSync(join(box.cwd, "a.txt"), 0o666);
    }
    try {
      server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "write", input: { path: "a.txt", content: "ALPHA\n" } }]) }, { body: openaiText("Done.") });
      const ran = await run("change a", [], asNobody);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr).toMatch(/checkpoint: agent\.sock is not recorded: .*socket/);
      expect(ran.stderr).toMatch(/checkpoint: pipe is not recorded: .*named pipe/);
      if (asNobody || process.getuid?.() !== 0) expect(ran.stderr).toMatch(/checkpoint: secret\.txt is not recorded: .*EACCES/);
      const rewind = await box.awl(["rewind", "--to", "1", "--code", "--yes"], { asNobody });
      expect(rewind.code, rewind.stderr).toBe(0);
      expect(readFileSync(join(box.cwd, "a.txt"), "utf8")).toBe("alpha\n");
      expect(readFileSync(join(box.cwd, "secret.txt"), "utf8")).toBe("root only\n");
      expect(existsSync(join(box.cwd, "agent.sock"))).toBe(true);
    } finally {
      socket.close();
    }
  });

  it("a checkpoint store that cannot be written (as a full disk) leaves the checkpoint incomplete: the turn runs, a rewind refuses it", async () => {
    writeFileSync(join(box.cwd, "a.txt"), "alpha\n");
    mkdirSync(join(dataDir(), "checkpoints"), { recursive: true });
    // A file where the objects folder goes: every object write fails, as on a full disk.
    writeFileSync(join(dataDir(), "checkpoints", "objects"), "");
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "write", input: { path: "a.txt", content: "ALPHA\n" } }]) }, { body: openaiText("Done.") });
    const ran = await run("change a");
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain("checkpoint: could not write the checkpoint store");
    const sessions = readdirSync(join(dataDir(), "checkpoints", "sessions"));
    const records = readFileSync(join(dataDir(), "checkpoints", "sessions", sessions[0]!), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(records.every((r) => r.complete === false && r.tree === undefined)).toBe(true);
    const rewind = await box.awl(["rewind", "--to", "1", "--code", "--yes"]);
    expect(rewind.code).toBe(1);
    expect(rewind.stderr).toContain("incomplete");
    expect(readFileSync(join(box.cwd, "a.txt"), "utf8")).toBe("ALPHA\n");
  });

  it("a rewind killed with SIGKILL halfway leaves no file truncated, and running it again finishes it", async () => {
    const count = 400;
    const original = (i: number): string => `original ${i} `.repeat(4000);
    mkdirSync(join(box.cwd, "data"));
    for (let i = 0; i < count; i++) writeFileSync(join(box.cwd, "data", `f${i}.txt`), original(i));
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "for f in data/*.txt; do echo changed > $f; done" } }]) }, { body: openaiText("Done.") });
    const ran = await run("change them all");
    expect(ran.code, ran.stderr).toBe(0);
    const journal = join(dataDir(), "checkpoints", "workspaces", createHash("sha256").update(box.cwd).digest("hex").slice(0, 24), "rewind-journal.json");
    const child = spawn(process.execPath, [AWL, "rewind", "--to", "1", "--code", "--yes"], { cwd: box.cwd, env: box.env(), stdio: "ignore" });
    const exited = new Promise((done) => child.on("close", done));
    // Killed once the journal is written and the first file is restored: halfway through the files.
    let seen = false;
    const first = join(box.cwd, "data", "f0.txt");
    while (child.exitCode === null && child.signalCode === null) {
      if (existsSync(journal) && readFileSync(first, "utf8") !== "changed\n") {
        seen = true;
        child.kill("SIGKILL");
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await exited;
    expect(seen, "the rewind ended before it could be killed").toBe(true);
    expect(existsSync(journal)).toBe(true);
    for (let i = 0; i < count; i++) expect(["changed\n", original(i)]).toContain(readFileSync(join(box.cwd, "data", `f${i}.txt`), "utf8"));
    const again = await box.awl(["rewind", "--to", "1", "--code", "--yes"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("finished a rewind that had been interrupted");
    for (let i = 0; i < count; i++) expect(readFileSync(join(box.cwd, "data", `f${i}.txt`), "utf8")).toBe(original(i));
    expect(readdirSync(join(box.cwd, "data")).filter((n) => n.startsWith(".awl-rewind"))).toEqual([]);
    expect(existsSync(journal)).toBe(false);
  });

  it("a session file whose parent links are broken loads as the longest valid branch, and says so", async () => {
    const dir = join(dataDir(), "sessions");
    mkdirSync(dir, { recursive: true });
    const id = "20260101-000000-000-abc123";
    const message = (mid: string, parent: string | null, role: "user" | "assistant", text: string) => ({
      type: "message", time: "2026-01-01T00:00:01.000Z", id: mid, parent,
      message: role === "user" ? { role, content: [{ type: "text", text }] } : { role, content: [{ type: "text", text }], stop_reason: "end_turn", stop_reason_raw: "stop", usage: { input_tokens: 1, output_tokens: 1 } },
    });
    const lines = [
      { type: "session", version: 2, id, created: "2026-01-01T00:00:00.000Z", cwd: box.cwd, provider: "openai", model: "test-model", awl_version: "0.1.0" },
      message("m1", null, "user", "first question"),
      message("m2", "m1", "assistant", "first answer"),
      message("m3", "m2", "user", "second question"),
      // Its parent was never written (or its line was lost): kept after the message before it.
      message("m4", "gone", "assistant", "second answer"),
    ];
    writeFileSync(join(dir, `${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join("\n") + "\n", { mode: 0o600 });
    server.enqueue({ body: openaiText("Third answer.") });
    const ran = await box.awl(["-r", id, "-p", "third question", "--output-format", "json"], { env: providerEnv("openai", server.url) });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toMatch(/:5: the parent message "gone" is not in the file/);
    const sent = JSON.stringify(server.requests[0]!.json().messages);
    for (const text of ["first question", "first answer", "second question", "second answer", "third question"]) expect(sent).toContain(text);
    rmSync(join(dir, `${id}.jsonl`));
  });
});

// Checkpoints and `awl rewind` through the built awl: a turn whose tools edit, write, delete and create files (std
// tools and a bash command), then `awl rewind --to 1 --code` puts every file back, whatever tool changed it.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

/** Every file under `dir` (`.git` included when `withGit`) with its bytes' hash and mode. */
function snapshot(dir: string, withGit = false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const e of readdirSync(at, { withFileTypes: true })) {
      const abs = join(at, e.name);
      if (e.name === ".git" && !withGit) continue;
      if (e.isDirectory()) walk(abs);
      else out[relative(dir, abs)] = `${createHash("sha256").update(readFileSync(abs)).digest("hex").slice(0, 16)} ${(statSync(abs).mode & 0o777).toString(8)}`;
    }
  };
  walk(dir);
  return out;
}

/** The model edits a.txt, writes b.txt, and runs bash that deletes c.txt and creates d.txt. */
function scriptFourFileTurn(): void {
  server.enqueue(
    {
      body: openaiToolCalls([
        { id: "c1", name: "edit", input: { path: "a.txt", old_string: "alpha", new_string: "ALPHA" } },
        { id: "c2", name: "write", input: { path: "b.txt", content: "brand new b\n" } },
      ]),
    },
    { body: openaiToolCalls([{ id: "c3", name: "bash", input: { command: "sh -c 'rm c.txt; echo x > d.txt; chmod -x run.sh'" } }]) },
    { body: openaiText("Done.") },
  );
}

function seed(dir: string): void {
  writeFileSync(join(dir, "a.txt"), "alpha\nbeta\n");
  writeFileSync(join(dir, "c.txt"), "gamma\n");
  writeFileSync(join(dir, "run.sh"), "#!/bin/sh\necho run\n");
  chmodSync(join(dir, "run.sh"), 0o755);
  mkdirSync(join(dir, "node_modules", "dep"), { recursive: true });
  writeFileSync(join(dir, "node_modules", "dep", "index.js"), "module.exports = 1;\n");
  writeFileSync(join(dir, ".gitignore"), "node_modules/\n");
}

const turn = (): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  box.awl(["--allow", "*", "-p", "change the files", "--output-format", "json"], { env: providerEnv("openai", server.url) });

describe("awl rewind --code", () => {
  it("restores every file a turn changed in a folder that is not a git repository, executable bit included", async () => {
    seed(box.cwd);
    const before = snapshot(box.cwd);
    scriptFourFileTurn();
    const ran = await turn();
    expect(ran.code, ran.stderr).toBe(0);
    expect(readFileSync(join(box.cwd, "a.txt"), "utf8")).toBe("ALPHA\nbeta\n");
    expect(existsSync(join(box.cwd, "c.txt"))).toBe(false);
    expect(existsSync(join(box.cwd, "d.txt"))).toBe(true);
    // Ignored: never recorded, so never touched by a restore.
    writeFileSync(join(box.cwd, "node_modules", "dep", "index.js"), "changed by npm\n");

    const listed = await box.awl(["rewind"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/1 {2}2 added, 2 modified, 1 deleted since/);

    const dry = await box.awl(["rewind", "--to", "1", "--code"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("run again with --yes");
    expect(existsSync(join(box.cwd, "c.txt"))).toBe(false);

    const done = await box.awl(["rewind", "--to", "1", "--code", "--yes"]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/restore {2}a\.txt/);
    expect(done.stdout).toMatch(/delete {3}b\.txt/);
    const after = snapshot(box.cwd);
    expect({ ...after, "node_modules/dep/index.js": undefined }).toEqual({ ...before, "node_modules/dep/index.js": undefined });
    expect(statSync(join(box.cwd, "run.sh")).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(box.cwd, "node_modules", "dep", "index.js"), "utf8")).toBe("changed by npm\n");
  });

  it("inside a git repository leaves .git, the index, the stash and git status as they were", async () => {
    seed(box.cwd);
    const git = (...args: string[]): string =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: box.cwd, encoding: "utf8", env: { ...process.env, HOME: box.home } });
    git("init", "-q");
    git("add", "a.txt", "c.txt", ".gitignore");
    git("commit", "-qm", "one");
    writeFileSync(join(box.cwd, "a.txt"), "alpha\nbeta\nstashed\n");
    git("stash", "-q");
    git("add", "run.sh");
    const gitBefore = { tree: snapshot(join(box.cwd, ".git"), true), status: git("status", "--porcelain"), stash: git("stash", "list") };
    const before = snapshot(box.cwd);
    scriptFourFileTurn();
    const ran = await turn();
    expect(ran.code, ran.stderr).toBe(0);
    const done = await box.awl(["rewind", "--to", "1", "--code", "--yes"]);
    expect(done.code, done.stderr).toBe(0);
    expect(snapshot(box.cwd)).toEqual(before);
    expect(snapshot(join(box.cwd, ".git"), true)).toEqual(gitBefore.tree);
    expect(git("status", "--porcelain")).toBe(gitBefore.status);
    expect(git("stash", "list")).toBe(gitBefore.stash);
  });

  it("names a file the user edited after the turn and does not overwrite it without --overwrite-changed", async () => {
    seed(box.cwd);
    scriptFourFileTurn();
    const ran = await turn();
    expect(ran.code, ran.stderr).toBe(0);
    writeFileSync(join(box.cwd, "a.txt"), "the user's own work\n");
    const refused = await box.awl(["rewind", "--to", "1", "--code", "--yes"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("changed outside awl since its last checkpoint");
    expect(refused.stderr).toContain("a.txt");
    expect(readFileSync(join(box.cwd, "a.txt"), "utf8")).toBe("the user's own work\n");
    expect(existsSync(join(box.cwd, "b.txt"))).toBe(true); // nothing restored at all
    const forced = await box.awl(["rewind", "--to", "1", "--code", "--yes", "--overwrite-changed"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(box.cwd, "a.txt"), "utf8")).toBe("alpha\nbeta\n");
  });
});

describe("awl rewind --conversation, branches and forks", () => {
  const sessionsDir = (): string => join(box.home, ".local", "share", "awl", "sessions");
  const userTexts = (body: { messages: { role: string; content: unknown }[] }): string[] =>
    body.messages.filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));

  it("--both restores the files and starts a branch; the next prompt continues it and the old answer is kept", async () => {
    seed(box.cwd);
    scriptFourFileTurn();
    const ran = await turn();
    expect(ran.code, ran.stderr).toBe(0);
    const id = JSON.parse(ran.stdout).session_id as string;
    const done = await box.awl(["rewind", id, "--to", "1", "--both", "--yes"]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain("The conversation is back to just before prompt 1");
    expect(done.stdout).toContain("change the files");
    expect(existsSync(join(box.cwd, "c.txt"))).toBe(true);

    server.enqueue({ body: openaiText("A second answer.") });
    const next = await box.awl(["-c", "-p", "only talk this time", "--output-format", "json"], { env: providerEnv("openai", server.url) });
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout).session_id).toBe(id);
    const sent = server.requests[server.requests.length - 1]!.json();
    expect(sent.messages.filter((m: { role: string }) => m.role !== "system")).toHaveLength(1);
    expect(userTexts(sent).join()).toContain("only talk this time");

    const exported = await box.awl(["sessions", "export", id, "--format", "json", "--all-branches"]);
    expect(exported.code, exported.stderr).toBe(0);
    const all = JSON.parse(exported.stdout);
    expect(all.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
    expect(JSON.stringify(all.messages)).toContain("A second answer.");
    expect(JSON.stringify(all.tree)).toContain("Done.");
    expect(all.tree.filter((n: { parent: string | null }) => n.parent === null)).toHaveLength(2);
  });

  it("--fork-session continues a copy under a new id with the same history; the original is left as it was", async () => {
    server.enqueue({ body: openaiText("First answer.") });
    const first = await box.awl(["-p", "hello", "--output-format", "json"], { env: providerEnv("openai", server.url) });
    expect(first.code, first.stderr).toBe(0);
    const id = JSON.parse(first.stdout).session_id as string;
    const original = readFileSync(join(sessionsDir(), `${id}.jsonl`));
    server.enqueue({ body: openaiText("Forked answer.") });
    const forked = await box.awl(["-r", id, "--fork-session", "-p", "and then?", "--output-format", "json"], { env: providerEnv("openai", server.url) });
    expect(forked.code, forked.stderr).toBe(0);
    const forkId = JSON.parse(forked.stdout).session_id as string;
    expect(forkId).not.toBe(id);
    const sent = server.requests[1]!.json();
    expect(userTexts(sent)).toHaveLength(2);
    expect(JSON.stringify(sent.messages)).toContain("First answer.");
    expect(readFileSync(join(sessionsDir(), `${id}.jsonl`)).equals(original)).toBe(true);
  });

  it("a session file of format version 1 resumes with its history", async () => {
    mkdirSync(sessionsDir(), { recursive: true });
    const id = "20250101-000000-000-abc123";
    const lines = [
      { type: "session", version: 1, id, created: "2025-01-01T00:00:00.000Z", cwd: box.cwd, provider: "openai", model: "test-model", awl_version: "0.1.0" },
      { type: "message", time: "2025-01-01T00:00:01.000Z", message: { role: "user", content: [{ type: "text", text: "old question" }] } },
      { type: "message", time: "2025-01-01T00:00:02.000Z", message: { role: "assistant", content: [{ type: "text", text: "old answer" }], stop_reason: "end_turn", stop_reason_raw: "stop", usage: { input_tokens: 1, output_tokens: 1 } } },
    ];
    writeFileSync(join(sessionsDir(), `${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join("\n") + "\n", { mode: 0o600 });
    server.enqueue({ body: openaiText("New answer.") });
    const resumed = await box.awl(["-r", id, "-p", "new question", "--output-format", "json"], { env: providerEnv("openai", server.url) });
    expect(resumed.code, resumed.stderr).toBe(0);
    const sent = server.requests[0]!.json();
    expect(JSON.stringify(sent.messages)).toContain("old answer");
    expect(userTexts(sent).join()).toContain("new question");
    expect(readFileSync(join(sessionsDir(), `${id}.jsonl`), "utf8").split("\n")[0]).toContain('"version":1');
  });
});

describe("rewind and fork over stream-json input", () => {
  const line = (value: unknown): string => JSON.stringify(value);
  const control = (request_id: string, request: Record<string, unknown>): string => line({ type: "control_request", request_id, request });
  const user = (text: string): string => line({ type: "user", message: { role: "user", content: text } });

  it("reports each checkpoint's id; rewind_points, rewind (code and conversation) and fork are answered after the turns before them", async () => {
    seed(box.cwd);
    scriptFourFileTurn();
    server.enqueue({ body: openaiText("Talked instead.") }, { body: openaiText("In the fork.") });
    const input = [
      user("change the files"),
      control("p1", { subtype: "rewind_points" }),
      control("r0", { subtype: "rewind", to: 1, mode: "code", dry_run: true }),
      control("r1", { subtype: "rewind", to: 1, mode: "both" }),
      user("only talk this time"),
      control("f1", { subtype: "fork" }),
      user("and in the fork?"),
      control("bad", { subtype: "rewind", to: 0, mode: "code" }),
    ].join("\n") + "\n";
    const ran = await box.awl(["--allow", "*", "--input-format", "stream-json", "--output-format", "stream-json"], { env: providerEnv("openai", server.url), input });
    const out = ran.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const results = out.filter((l) => l.type === "result");
    expect(results).toHaveLength(3);
    const checkpoints = out.filter((l) => l.type === "checkpoint").map((l) => l.checkpoint);
    expect(checkpoints.length).toBeGreaterThanOrEqual(3);
    expect(checkpoints.every((c) => /^ck_[0-9a-f]{12}$/.test(c.id) && c.complete === true)).toBe(true);
    expect(checkpoints[0]).toMatchObject({ prompt: 1, when: "turn", session_id: results[0].session_id });

    const answers = new Map(out.filter((l) => l.type === "control_response").map((l) => [l.response.request_id, l.response]));
    const points = answers.get("p1").response.prompts;
    expect(points).toHaveLength(1);
    expect(points[0]).toMatchObject({ number: 1, text: "change the files", changes: { added: 2, modified: 2, deleted: 1 } });
    expect(checkpoints.map((c) => c.id)).toContain(points[0].checkpoint);
    expect(answers.get("r0").response).toMatchObject({ status: "planned", files: { restore: ["a.txt", "run.sh"], create: ["c.txt"], delete: ["b.txt", "d.txt"] } });
    const rewound = answers.get("r1");
    expect(rewound.subtype).toBe("success");
    expect(rewound.response).toMatchObject({ status: "restored", prompt: "change the files", checkpoint: points[0].checkpoint });
    expect(readFileSync(join(box.cwd, "c.txt"), "utf8")).toBe("gamma\n");
    expect(existsSync(join(box.cwd, "d.txt"))).toBe(false);
    // The answer to a control line comes after the turn sent before it.
    const at = (pred: (l: any) => boolean): number => out.findIndex(pred);
    expect(at((l) => l.type === "control_response" && l.response.request_id === "r1")).toBeGreaterThan(at((l) => l.type === "result"));
    // A turn's checkpoints come before its result: the first turn's (turn, tools, end) before the first result.
    const firstResult = at((l) => l.type === "result");
    expect(out.slice(0, firstResult).filter((l) => l.type === "checkpoint").map((l) => l.checkpoint.when)).toEqual(["turn", "tools", "end"]);

    // After the rewind the conversation is a new branch: the next request holds only the new prompt.
    expect(server.requests[3]!.json().messages.filter((m: { role: string }) => m.role !== "system")).toHaveLength(1);
    const forked = answers.get("f1").response;
    expect(forked.forked_from).toBe(results[0].session_id);
    expect(results[1].session_id).toBe(results[0].session_id);
    expect(results[2].session_id).toBe(forked.session_id);
    // The fork's turn is checkpointed under the fork.
    expect(checkpoints[checkpoints.length - 1].session_id).toBe(forked.session_id);
    expect(JSON.stringify(server.requests[4]!.json().messages)).toContain("Talked instead.");

    expect(answers.get("bad")).toBeUndefined();
    expect(out.find((l) => l.type === "input_error").message).toContain('a rewind needs "to"');
  });

  it("names files changed outside awl in an error answer and restores nothing", async () => {
    seed(box.cwd);
    scriptFourFileTurn();
    const first = await turn();
    expect(first.code, first.stderr).toBe(0);
    writeFileSync(join(box.cwd, "a.txt"), "the user's own work\n");
    const input = control("r1", { subtype: "rewind", to: 1, mode: "code" }) + "\n";
    const ran = await box.awl(["-c", "--input-format", "stream-json", "--output-format", "stream-json"], { env: providerEnv("openai", server.url), input });
    const answer = ran.stdout.trim().split("\n").map((l) => JSON.parse(l)).find((l) => l.type === "control_response").response;
    expect(answer).toMatchObject({ subtype: "error", request_id: "r1", conflicts: ["a.txt"] });
    expect(answer.error).toContain("changed outside awl");
    expect(readFileSync(join(box.cwd, "a.txt"), "utf8")).toBe("the user's own work\n");
    expect(existsSync(join(box.cwd, "c.txt"))).toBe(false);
  });
});

describe("awl rewind --code after a sub-agent's changes", () => {
  it("restores what a sub-agent wrote, though its task tool only reads and starts at once: the sub-agent's writes wait for the turn's checkpoint", async () => {
    writeFileSync(join(box.cwd, "a.txt"), "alpha\n");
    // Enough files that recording them outlasts the sub-agent's first request: a write that did not wait for the
    // checkpoint would be recorded in it, and the rewind would keep it.
    mkdirSync(join(box.cwd, "many"));
    for (let i = 0; i < 3000; i++) writeFileSync(join(box.cwd, "many", `f${i}.txt`), `${i}\n`);
    server.enqueue(
      { body: openaiToolCalls([{ id: "l1", name: "ls", input: {} }, { id: "t1", name: "task", input: { description: "write it", prompt: "write out.txt and change a.txt" } }]) },
      {
        body: openaiToolCalls([
          { id: "w1", name: "write", input: { path: "out.txt", content: "by the sub-agent\n" } },
          { id: "w2", name: "write", input: { path: "a.txt", content: "ALPHA\n" } },
        ]),
      },
      { body: openaiText("Child wrote it.") },
      { body: openaiText("Parent done.") },
    );
    const ran = await turn();
    expect(ran.code, ran.stderr).toBe(0);
    expect(readFileSync(join(box.cwd, "out.txt"), "utf8")).toBe("by the sub-agent\n");
    const done = await box.awl(["rewind", "--to", "1", "--code", "--yes"]);
    expect(done.code, done.stderr).toBe(0);
    expect(existsSync(join(box.cwd, "out.txt"))).toBe(false);
    expect(readFileSync(join(box.cwd, "a.txt"), "utf8")).toBe("alpha\n");
  });
});

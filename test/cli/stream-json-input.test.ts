/** `awl --input-format stream-json --output-format stream-json`: a multi-turn conversation over stdin/stdout. */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { openaiAnswer, unfinishedAnswer } from "./openai-answer.js";
import { AWL, expectNoStackTrace, runAwl, tempDir } from "./run-awl.js";
import { conversationSent } from "../support/sent.js";
import { PNG_1X1 } from "../support/images.js";
import { fixture } from "../providers/anthropic/support.js";
import { openaiToolCalls } from "../e2e/support.js";
import { allRunning, forkingCommand, noneLeft } from "../support/processes.js";

let server: ReplayServer;
beforeEach(async () => {
  server = await startReplayServer();
});
afterEach(() => server.close());

const FLAGS = ["--input-format", "stream-json", "--output-format", "stream-json"];
const env = () => ({ AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-test", AWL_MODEL: "gpt-test" });
const user = (content: unknown) => JSON.stringify({ type: "user", message: { role: "user", content } });

/** An answer whose first word comes at once and each next one 300 ms later. */
interface Live {
  child: ChildProcessWithoutNullStreams;
  lines: any[];
  stderr(): string;
  send(line: string): void;
  /** Resolves with the first output line (from `from` on) that matches. */
  waitFor(match: (line: any) => boolean, from?: number): Promise<any>;
  exit: Promise<number | null>;
}

function startAwl(args: string[]): Live {
  const home = tempDir("awl-home-");
  const child = spawn(process.execPath, [AWL, ...args], {
    env: { PATH: process.env.PATH ?? "", TMPDIR: tmpdir(), HOME: home, XDG_CONFIG_HOME: join(home, ".config"), ...env() },
    cwd: home,
  });
  const lines: any[] = [];
  const waiters: (() => void)[] = [];
  let buffer = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (data: string) => {
    buffer += data;
    for (let at = buffer.indexOf("\n"); at !== -1; at = buffer.indexOf("\n")) {
      lines.push(JSON.parse(buffer.slice(0, at)));
      buffer = buffer.slice(at + 1);
    }
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.setEncoding("utf8").on("data", (data: string) => (stderr += data));
  const exit = new Promise<number | null>((resolve) => child.on("close", resolve));
  return {
    child,
    lines,
    stderr: () => stderr,
    send: (line) => child.stdin.write(`${line}\n`),
    async waitFor(match, from = 0) {
      for (;;) {
        const found = lines.slice(from).find(match);
        if (found) return found;
        if (child.exitCode !== null) throw new Error(`awl exited; stdout: ${JSON.stringify(lines)}; stderr: ${stderr}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    exit,
  };
}

describe("--input-format stream-json", () => {
  it("holds three turns in one session; an interrupt cancels the running one; bad lines are input_error events", async () => {
    server.enqueue(openaiAnswer("First answer."), unfinishedAnswer(["slow", "second", "answer", "here"]), openaiAnswer("Third answer."));
    const awl = startAwl(FLAGS);

    awl.send(user("one"));
    const first = await awl.waitFor((l) => l.type === "result");
    expect(first.stop_reason).toBe("end_turn");
    expect(first.messages.map((m: any) => m.content[0].text)).toEqual(["one", "First answer."]);
    expect(first.context).toMatchObject({ tokens: 11, window: 128_000 });

    const mark = awl.lines.length;
    awl.send(user([{ type: "text", text: "two" }]));
    await awl.waitFor((l) => l.type === "delta", mark);
    awl.send(JSON.stringify({ type: "control_request", request_id: "req-1", request: { subtype: "interrupt" } }));
    expect(await awl.waitFor((l) => l.type === "control_response", mark)).toEqual({ type: "control_response", response: { subtype: "success", request_id: "req-1" } });
    const second = await awl.waitFor((l) => l.type === "result", mark);
    expect(second.stop_reason).toBe("cancelled");

    awl.send("{not json");
    awl.send(JSON.stringify({ type: "assistant", message: {} }));
    const bad = await awl.waitFor((l) => l.type === "input_error" && l.line === 5, mark);
    expect(bad.message).toMatch(/unknown type "assistant"/);
    expect(awl.lines.find((l) => l.type === "input_error" && l.line === 4).message).toMatch(/^not JSON/);

    const third = awl.lines.length;
    awl.send(user("three"));
    awl.child.stdin.end();
    const last = await awl.waitFor((l) => l.type === "result", third);
    expect(await awl.exit).toBe(0);

    expect(last.stop_reason).toBe("end_turn");
    expect(new Set([first.session_id, second.session_id, last.session_id]).size).toBe(1);
    // The third request carries the whole history: turn one, the interrupted prompt (with the note), turn three.
    const sent = conversationSent(server.requests[2]!.json());
    expect(sent.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(sent[2].content).toContain("two");
    expect(sent[2].content).toContain("three");
    expect(awl.lines.at(-1)).toEqual(last);
    expect(awl.stderr()).toContain("stdin line 4: not JSON");
    expectNoStackTrace(awl.stderr());
  });

  it("an interrupt while bash runs kills the command and every process it started", async () => {
    const { command, lengths } = forkingCommand();
    server.enqueue({ body: openaiToolCalls([{ id: "b1", name: "bash", input: { command } }]) });
    const awl = startAwl([...FLAGS, "--allow", "bash"]);
    awl.send(user("run it"));
    await allRunning(lengths);
    awl.send(JSON.stringify({ type: "control_request", request_id: "req-1", request: { subtype: "interrupt" } }));
    expect((await awl.waitFor((l) => l.type === "result")).stop_reason).toBe("cancelled");
    await noneLeft(lengths);
    awl.child.stdin.end();
    expect(await awl.exit).toBe(130); // the last turn's exit code: cancelled (docs/cli.md)
  });

  it("at the end of stdin finishes the turns already sent, then exits", async () => {
    server.enqueue(openaiAnswer("A."), openaiAnswer("B."));
    const run = await runAwl(FLAGS, { env: env(), input: `${user("a")}\n${user("b")}` });
    expect(run.code).toBe(0);
    const results = run.stdout.trim().split("\n").map((l) => JSON.parse(l)).filter((l) => l.type === "result");
    expect(results.map((r) => r.messages.at(-1).content[0].text)).toEqual(["A.", "B."]);
  });

  it("input awl cannot use never hangs: only bad lines exit 2, each named; the flag needs stream-json output", async () => {
    const run = await runAwl(FLAGS, { env: env(), input: `[1,2]\n${user([{ type: "image", source: {} }])}\n\n${user("")}\n` });
    expect(run.code).toBe(2);
    expect(run.stdout.trim().split("\n").map((l) => JSON.parse(l))).toEqual([
      { type: "input_error", line: 1, message: "not a JSON object" },
      { type: "input_error", line: 2, message: 'content block 0 (image) needs "source": {"type": "base64", "media_type": ..., "data": ...}' },
      { type: "input_error", line: 4, message: "the message is empty" },
    ]);
    expect(server.requests).toHaveLength(0);
    const wrong = await runAwl(["--input-format", "stream-json", "-p", "hi"], { env: env() });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--input-format stream-json needs --output-format stream-json");
  });

  describe("images in prompts", () => {
    const image = (media_type: string, data: string) => ({ type: "image", source: { type: "base64", media_type, data } });
    // Bigger than the session's side-file threshold (64 KiB): a PNG header and filler.
    const bigPng = Buffer.concat([Buffer.from(PNG_1X1, "base64").subarray(0, 16), Buffer.alloc(100_000, 7)]).toString("base64");

    it("reach the OpenAI request as image_url parts, are saved (a big one beside the session) and sent again on -c", async () => {
      server.enqueue(openaiAnswer("A red dot."), openaiAnswer("Still a dot."));
      const home = tempDir("awl-home-");
      // A model the catalogue knows: the images' tokens make awl check the window, which it would ask an unknown model's server.
      const sameHome = { ...env(), AWL_MODEL: "gpt-4o", HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
      const first = await runAwl(FLAGS, { env: sameHome, cwd: home, input: `${user([{ type: "text", text: "What is this?" }, image("image/png", PNG_1X1), image("image/png", bigPng)])}\n` });
      expect(first.stderr).toBe("");
      expect(first.code).toBe(0);
      const urls = (request: { json(): any }) =>
        request.json().messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content.filter((p: any) => p.type === "image_url").map((p: any) => p.image_url.url) : []));
      expect(urls(server.requests[0]!)).toEqual([`data:image/png;base64,${PNG_1X1}`, `data:image/png;base64,${bigPng}`]);
      const sessions = join(home, ".local", "share", "awl", "sessions");
      const sideFiles = readdirSync(sessions, { recursive: true }).map(String).filter((f) => f.endsWith(".b64"));
      expect(sideFiles).toHaveLength(1);
      expect(readFileSync(join(sessions, sideFiles[0]!), "utf8")).toBe(bigPng);
      const again = await runAwl(["-p", "-c", "And now?", "--output-format", "json"], { env: sameHome, cwd: home });
      expect(again.stderr).toBe("");
      expect(again.code).toBe(0);
      expect(urls(server.requests[1]!)).toEqual(urls(server.requests[0]!));
    });

    it("reach the Anthropic request as base64 image blocks", async () => {
      server.enqueue({ body: fixture("text.sse") });
      const run = await runAwl(FLAGS, {
        env: { AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test", AWL_MODEL: "claude-sonnet-4-5" },
        input: `${user([image("image/png", PNG_1X1), { type: "text", text: "What is this?" }])}\n`,
      });
      expect(run.code).toBe(0);
      const sent = server.requests[0]!.json().messages[0].content;
      expect(sent[0]).toMatchObject({ type: "image", source: { type: "base64", media_type: "image/png", data: PNG_1X1 } });
      expect(sent[1]).toMatchObject({ type: "text", text: "What is this?" });
    });

    it("a bad image is refused, naming the block and what is wrong; nothing is sent", async () => {
      const run = await runAwl(FLAGS, { env: env(), input: `${user([{ type: "text", text: "see" }, image("image/jpeg", PNG_1X1)])}\n${user([image("image/tiff", PNG_1X1)])}\n` });
      expect(run.code).toBe(2);
      expect(run.stdout.trim().split("\n").map((l) => JSON.parse(l))).toEqual([
        { type: "input_error", line: 1, message: "content block 1 (image) says image/jpeg, but its data is not a JPEG image" },
        { type: "input_error", line: 2, message: 'content block 0 (image) has media type "image/tiff"; awl sends image/png, image/jpeg, image/gif, image/webp' },
      ]);
      expect(server.requests).toHaveLength(0);
    });
  });
});

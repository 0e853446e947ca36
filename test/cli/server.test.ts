/** The built `awl -p` against the local replay server: real HTTP, real providers, every failure class. */
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { splitEvery, startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { openaiAnswer } from "./openai-answer.js";
import { expectNoStackTrace, runAwl } from "./run-awl.js";

let server: ReplayServer;
beforeEach(async () => {
  server = await startReplayServer();
});
afterEach(() => server.close());

const openai = () => ({ env: { AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-test-secret", AWL_MODEL: "gpt-test" } });

function checkStderr(stderr: string): void {
  expectNoStackTrace(stderr);
  expect(stderr).not.toContain("sk-test-secret");
}

describe("awl -p against an OpenAI-compatible server", () => {
  it("streams a one-line reply and sends the documented request", async () => {
    server.enqueue(openaiAnswer("Hello from the server."));
    const run = await runAwl(["-p", "hi"], openai());
    expect(run).toMatchObject({ code: 0, stdout: "Hello from the server.\n", stderr: "" });
    const request = server.requests[0]!;
    expect(request.url).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer sk-test-secret");
    expect(request.json()).toMatchObject({ model: "gpt-test", stream: true, messages: [{ role: "user", content: "hi" }] });
  });

  it("json mode: the reply with usage", async () => {
    server.enqueue(openaiAnswer("Hi there."));
    const run = await runAwl(["-p", "hi", "--output-format", "json"], openai());
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      type: "result",
      messages: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", content: [{ type: "text", text: "Hi there." }], stop_reason: "end_turn", stop_reason_raw: "stop", usage: { input_tokens: 9, output_tokens: 2 } },
      ],
      stop_reason: "end_turn",
      usage: { input_tokens: 9, output_tokens: 2 },
    });
  });

  it("401: exit 1, says to check the key, error object in json", async () => {
    server.enqueue({ status: 401, headers: { "content-type": "application/json" }, body: '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}' });
    const run = await runAwl(["-p", "hi", "--output-format", "json"], openai());
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result.stop_reason).toBe("error");
    expect(result.error).toMatchObject({ kind: "auth", retryable: false, status: 401, retry_after_ms: null });
    expect(result.error.message).toContain("Incorrect API key provided");
    expect(run.stderr).toContain("refused the API key (HTTP 401)");
    expect(run.stderr).toContain("→ check AWL_API_KEY\n");
    checkStderr(run.stderr);
  });

  it("429 then OK: retries after retry-after-ms and succeeds; stream-json shows the retry", async () => {
    server.enqueue({ status: 429, headers: { "content-type": "application/json", "retry-after-ms": "20" }, body: '{"error":{"message":"Rate limit reached"}}' }, openaiAnswer("Made it."));
    const run = await runAwl(["-p", "hi", "--output-format", "stream-json"], openai());
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const retry = events.find((e) => e.type === "retry");
    expect(retry).toMatchObject({ type: "retry", attempt: 1, max_retries: 3, error: { kind: "rate_limit", status: 429, retry_after_ms: 20 } });
    expect(events.at(-1)).toMatchObject({ type: "result", stop_reason: "end_turn" });
    expect(server.requests).toHaveLength(2);
    checkStderr(run.stderr);
  });

  it("500 after the retries: exit 1 with the status and how many retries were made", async () => {
    const failure = { status: 500, headers: { "content-type": "application/json", "retry-after-ms": "1" }, body: '{"error":{"message":"The server had an error"}}' };
    server.enqueue(failure, failure);
    const run = await runAwl(["-p", "hi", "--max-retries", "1"], openai());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("failed (HTTP 500) after 1 retry");
    expect(server.requests).toHaveLength(2);
    checkStderr(run.stderr);
  });

  it("a stream cut before [DONE]: truncated, exit 1", async () => {
    const cut = openaiAnswer("This will be cut off").body.slice(0, 6);
    server.enqueue({ body: cut });
    const run = await runAwl(["-p", "hi", "--max-retries", "0", "--output-format", "json"], openai());
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error).toMatchObject({ kind: "truncated", retryable: true });
    expect(run.stderr).toContain("was cut off");
    checkStderr(run.stderr);
  });

  it("a stalled stream: exit 1 after --stall-timeout", async () => {
    server.enqueue({ body: openaiAnswer("Never finishes").body.slice(0, 3), ending: "stall" });
    const run = await runAwl(["-p", "hi", "--max-retries", "0", "--stall-timeout", "300"], openai());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("stopped sending");
    checkStderr(run.stderr);
  });

  it("connection refused: exit 1, says to check the base URL", async () => {
    const closed = server.url;
    await server.close();
    const run = await runAwl(["-p", "hi", "--max-retries", "0"], { env: { AWL_BASE_URL: `${closed}/v1`, AWL_MODEL: "m" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach ${closed}/v1`);
    expect(run.stderr).toContain("--base-url");
    checkStderr(run.stderr);
    server = await startReplayServer();
  });

  it("an HTML error page: exit 1, classified, no HTML dump", async () => {
    server.enqueue({ status: 502, headers: { "content-type": "text/html" }, body: "<html><body><h1>502 Bad Gateway</h1></body></html>" });
    const run = await runAwl(["-p", "hi", "--max-retries", "0"], openai());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("HTTP 502");
    expect(run.stderr).not.toContain("<html>");
    checkStderr(run.stderr);
  });
});

describe("Ctrl-C in print mode", () => {
  it("cancels the turn: exit 130, the result object says cancelled", async () => {
    const slow = openaiAnswer("one two three four five six seven eight nine ten").body.map((data) => ({ data, delayMs: 30 }));
    server.enqueue({ body: slow });
    const run = await runAwl(["-p", "hi", "--output-format", "stream-json"], {
      ...openai(),
      onOutput: { text: '"delta":"two ', then: (child) => child.kill("SIGINT") },
    });
    expect(run.code).toBe(130);
    const events = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(events.at(-1)).toMatchObject({ type: "result", stop_reason: "cancelled", messages: [{ role: "user" }] });
    expect(events.at(-1).messages).toHaveLength(1);
    expect(run.stderr).toBe("awl: cancelled\n");
  });
});

describe("awl -p against an Anthropic server", () => {
  it("streams the reply", async () => {
    const fixture = readFileSync(new URL("../fixtures/anthropic/text.sse", import.meta.url));
    server.enqueue({ body: splitEvery(fixture, 11) });
    const run = await runAwl(["-p", "hi", "--output-format", "json"], {
      env: { AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test", AWL_MODEL: "claude-test" },
    });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.stop_reason).toBe("end_turn");
    expect(result.messages[1].role).toBe("assistant");
    expect(server.requests[0]!.url).toBe("/v1/messages");
    expect(server.requests[0]!.headers["x-api-key"]).toBe("sk-ant-test");
  });

  it("--provider anthropic with both keys set: Anthropic's key and endpoint, never AWL_API_KEY or AWL_BASE_URL", async () => {
    const openaiServer = await startReplayServer();
    try {
      server.enqueue({ body: splitEvery(readFileSync(new URL("../fixtures/anthropic/text.sse", import.meta.url)), 11) });
      const run = await runAwl(["-p", "hi", "--provider", "anthropic", "--model", "claude-x"], {
        env: { AWL_API_KEY: "openai-key", AWL_BASE_URL: `${openaiServer.url}/v1`, ANTHROPIC_API_KEY: "ant-key", AWL_MODEL: "gpt-test" },
        configFile: JSON.stringify({ providers: { anthropic: { base_url: server.url } } }),
      });
      expect(run).toMatchObject({ code: 0, stdout: 'Hello, wörld — 👋 line two\nand "quotes"\n', stderr: "" });
      expect(openaiServer.requests).toHaveLength(0);
      expect(server.requests[0]!.url).toBe("/v1/messages");
      expect(server.requests[0]!.headers["x-api-key"]).toBe("ant-key");
      expect(server.requests[0]!.json().model).toBe("claude-x");
    } finally {
      await openaiServer.close();
    }
  });
});

describe("a failed attempt that is retried never reaches stdout (SPEC §3 rule 7)", () => {
  /** The stream of "half whole" cut right after the event carrying "half ". */
  const half = () => {
    const bytes = Buffer.concat(openaiAnswer("half whole").body);
    return [bytes.subarray(0, bytes.indexOf("data: ", bytes.indexOf("half ")))];
  };

  it("truncated before [DONE], then a good answer: stdout holds only the good one", async () => {
    server.enqueue({ body: half() }, openaiAnswer("whole"));
    const run = await runAwl(["-p", "hi"], openai());
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("whole\n");
    expect(run.stderr).toMatch(/^awl: truncated; retry 1\/3 in \d+\.\d s\n$/);
  });

  it("a stall, then a good answer", async () => {
    server.enqueue({ body: half(), ending: "stall" }, openaiAnswer("whole"));
    const run = await runAwl(["-p", "hi", "--stall-timeout", "300"], openai());
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("whole\n");
    expect(run.stderr).toContain("awl: stalled; retry 1/3");
  });

  it("Anthropic's in-stream overloaded_error, then a good answer", async () => {
    const overloaded = readFileSync(new URL("../fixtures/anthropic/overloaded-midstream.sse", import.meta.url));
    const good = readFileSync(new URL("../fixtures/anthropic/text.sse", import.meta.url));
    server.enqueue({ body: splitEvery(overloaded, 13) }, { body: splitEvery(good, 13) });
    const run = await runAwl(["-p", "hi"], { env: { AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test", AWL_MODEL: "claude-test" } });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Hello, wörld — 👋 line two\nand "quotes"\n');
    expect(run.stdout).not.toContain("Partial");
    expect(run.stderr).toContain("awl: overloaded; retry 1/3");
  });

  it("after the last retry fails, no partial answer is printed", async () => {
    server.enqueue({ body: half() });
    const run = await runAwl(["-p", "hi", "--max-retries", "0"], openai());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
  });
});

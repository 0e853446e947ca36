/** The built `awl -p` against the local replay server: real HTTP, real providers, every failure class. */
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bodyGate, sseData, splitEvery, startReplayServer, type ReplayServer } from "../support/replay-server.js";
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
    expect(request.json()).toMatchObject({
      model: "gpt-test",
      stream: true,
      messages: [{ role: "system", content: expect.stringMatching(/^You are awl, a coding agent/) }, { role: "user", content: "hi" }],
    });
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
      session_id: expect.stringMatching(/^[0-9]{8}-[0-9]{6}-[0-9]{3}-[0-9a-f]{6}$/),
      cost_usd: null,
      total_cost_usd: null,
      cost_note: 'the input price of "gpt-test" is not known',
      context: { model: "gpt-test", tokens: 11, window: 128000, window_source: "default", percent: 0 },
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
    expect(run.stderr).toBe(
      `awl: the API key was refused: HTTP 401 Unauthorized from ${server.url}/v1/chat/completions: Incorrect API key provided [invalid_request_error]\n` +
        "  → check AWL_API_KEY\n",
    );
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
    expect(run.stderr).toMatch(/^awl: server \(HTTP 500\); retry 1\/1 in 0\.0 s\n/);
    expect(run.stderr.split("\n").slice(1).join("\n")).toBe(
      `awl: the server failed after 1 retry: HTTP 500 Internal Server Error from ${server.url}/v1/chat/completions: The server had an error\n` +
        "  → try again later\n",
    );
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
    expect(run.stderr).toBe(
      `awl: network error: could not connect to ${new URL(closed).host} (connection refused) for ${closed}/v1/chat/completions: check that the server is running and that the base URL is right\n` +
        "  → check the network and the base URL (--base-url, AWL_BASE_URL)\n",
    );
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

describe("error messages: what happened once, then what to do", () => {
  const endpoint = () => `${server.url}/v1/chat/completions`;

  it("429 asking for a longer wait than awl takes: no retry, says how long the server asks", async () => {
    server.enqueue({ status: 429, headers: { "content-type": "application/json", "retry-after": "120" }, body: '{"error":{"message":"Rate limit reached"}}' });
    const run = await runAwl(["-p", "hi"], openai());
    expect(run.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(run.stderr).toBe(
      `awl: HTTP 429 Too Many Requests from ${endpoint()}: Rate limit reached; the server asks to wait 2 min (awl waits at most 60 s)\n  → try again later\n`,
    );
  });

  it("429 after the retries: counts the retries actually made", async () => {
    const limited = { status: 429, headers: { "content-type": "application/json", "retry-after-ms": "1" }, body: '{"error":{"message":"Rate limit reached"}}' };
    server.enqueue(limited, limited, limited);
    const run = await runAwl(["-p", "hi", "--max-retries", "2"], openai());
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n").slice(2).join("\n")).toBe(
      `awl: rate limited after 2 retries: HTTP 429 Too Many Requests from ${endpoint()}: Rate limit reached\n  → wait a little and try again, or raise --max-retries\n`,
    );
  });

  it("a 400 that is not about the model gets no model hint, whatever its words; a 404 or a model_not_found code does", async () => {
    server.enqueue({ status: 400, headers: { "content-type": "application/json" }, body: '{"error":{"message":"messages: bad role. Received Model Group=gpt-test"}}' });
    const plain = await runAwl(["-p", "hi"], openai());
    expect(plain.stderr).toBe(`awl: the request was rejected: HTTP 400 Bad Request from ${endpoint()}: messages: bad role. Received Model Group=gpt-test\n`);
    server.enqueue({ status: 400, headers: { "content-type": "application/json" }, body: '{"error":{"message":"The model gpt-test does not exist","code":"model_not_found"}}' });
    const model = await runAwl(["-p", "hi"], openai());
    expect(model.stderr).toBe(
      `awl: the request was rejected: HTTP 400 Bad Request from ${endpoint()}: The model gpt-test does not exist [model_not_found]\n` +
        '  → check the model name "gpt-test" (--model, AWL_MODEL) and the base URL (--base-url, AWL_BASE_URL)\n',
    );
    server.enqueue({ status: 404, headers: { "content-type": "text/plain" }, body: "Not Found" });
    const missing = await runAwl(["-p", "hi"], openai());
    expect(missing.stderr).toBe(
      `awl: the request was rejected: HTTP 404 Not Found from ${endpoint()}: Not Found\n` +
        '  → check the model name "gpt-test" (--model, AWL_MODEL) and the base URL (--base-url, AWL_BASE_URL)\n',
    );
  });

  it("a 200 that is not an event stream: exit 1, says so with a base URL hint, no retry", async () => {
    server.enqueue({ status: 200, headers: { "content-type": "text/html" }, body: "<html><head><title>Sign in</title></head><body>…</body></html>" });
    const run = await runAwl(["-p", "hi"], openai());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(server.requests).toHaveLength(1);
    expect(run.stderr).toBe(
      `awl: the server's answer is not a stream awl can read: expected an event stream (text/event-stream) from ${endpoint()} but got HTTP 200 with text/html: Sign in\n` +
        "  → check the base URL (--base-url, AWL_BASE_URL): it should point at an OpenAI- or Anthropic-style API that streams\n",
    );
  });

  it("a malformed chunk: exit 1, says the server sent data awl could not read", async () => {
    server.enqueue({ body: 'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\ndata: {"choices":[{"ind\n\ndata: [DONE]\n\n' });
    const run = await runAwl(["-p", "hi"], openai());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      `awl: the server's answer is not a stream awl can read: malformed JSON in the stream from ${endpoint()}: {"choices":[{"ind\n` +
        "  → check the base URL (--base-url, AWL_BASE_URL): it should point at an OpenAI- or Anthropic-style API that streams\n",
    );
  });

  it("unknown fields in the stream are ignored: exit 0", async () => {
    const chunk = (delta: object, finish: string | null = null) => ({ id: "x", system_fingerprint: "fp", choices: [{ index: 0, delta: { ...delta, reasoning_extra: null }, finish_reason: finish, logprobs: { novel: true } }], provider_specific: { a: 1 } });
    server.enqueue({ body: sseData([chunk({ role: "assistant", content: "" }), chunk({ content: "fine" }), chunk({}, "stop"), { choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, extra_tokens: 7 }, new_top_level: [] }, "[DONE]"]) });
    const run = await runAwl(["-p", "hi"], openai());
    expect(run).toMatchObject({ code: 0, stdout: "fine\n", stderr: "" });
  });

  it("a server that accepts and never answers: retried after --first-byte-timeout (the notice on stderr), then exit 1", async () => {
    server.enqueue({ ending: "hang" }, { ending: "hang" });
    const run = await runAwl(["-p", "hi", "--max-retries", "1", "--first-byte-timeout", "300"], openai());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(server.requests).toHaveLength(2);
    const [notice, ...rest] = run.stderr.split("\n");
    expect(notice).toMatch(/^awl: stalled; retry 1\/1 in \d+\.\d s$/);
    expect(rest.join("\n")).toBe(
      `awl: the server stopped sending after 1 retry: the server accepted the connection but sent no response: no data from ${endpoint()} for 300 ms\n` +
        "  → try again, or raise --first-byte-timeout (no response yet) or --stall-timeout (silent mid-stream)\n",
    );
    checkStderr(run.stderr);
  });

  it("a --stall-timeout shorter than the first-byte timeout also bounds the wait for the response", async () => {
    server.enqueue({ ending: "hang" });
    const run = await runAwl(["-p", "hi", "--max-retries", "0", "--stall-timeout", "300"], openai());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("sent no response: no data from");
    expect(run.stderr).toContain("for 300 ms");
  });
});

describe("Ctrl-C in print mode", () => {
  it("cancels the turn: exit 130, the result object says cancelled", async () => {
    // The rest of the answer is held until awl has ended: the Ctrl-C lands mid-stream however slow the machine.
    const body = Buffer.concat(openaiAnswer("one two three four five six seven eight nine ten").body);
    const cut = body.indexOf("three");
    const rest = bodyGate();
    server.enqueue({ body: [...splitEvery(body.subarray(0, cut), 7).map((data) => ({ data, delayMs: 30 })), { data: body.subarray(cut), after: rest.until }] });
    const run = await runAwl(["-p", "hi", "--output-format", "stream-json"], {
      ...openai(),
      onOutput: { text: '"delta":"two ', then: (child) => child.kill("SIGINT") },
    });
    rest.open();
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

  it("--thinking-budget under Anthropic's minimum, or a budget not below --max-tokens, is a config error before any request", async () => {
    const env = { AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test", AWL_MODEL: "claude-test" };
    const low = await runAwl(["-p", "hi", "--thinking-budget", "500"], { env });
    expect(low.code).toBe(2);
    expect(low.stderr).toBe("awl: the thinking budget 500 (from --thinking-budget) is below Anthropic's minimum of 1024 tokens\n  → use 1024 or more, or adaptive, or off\n");
    const above = await runAwl(["-p", "hi", "--thinking", "4000", "--max-tokens", "2000", "--output-format", "json"], { env });
    expect(above.code).toBe(2);
    expect(above.stderr).toBe(
      "awl: the thinking budget 4000 (from --thinking) is not below max tokens 2000 (from --max-tokens); Anthropic requires max_tokens above the budget\n" +
        "  → raise max tokens above the budget (e.g. --max-tokens 8096, the budget plus room for the answer) or lower the budget\n",
    );
    expect(JSON.parse(above.stdout)).toMatchObject({ stop_reason: "error", messages: [], error: { kind: "config" } });
    expect(server.requests).toHaveLength(0);
  });

  it("--thinking adaptive and off send Anthropic's adaptive and disabled thinking", async () => {
    const env = { AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test", AWL_MODEL: "claude-opus-4-6" };
    const text = readFileSync(new URL("../fixtures/anthropic/text.sse", import.meta.url));
    server.enqueue({ body: text }, { body: text });
    expect((await runAwl(["-p", "hi", "--thinking", "adaptive"], { env })).code).toBe(0);
    expect((await runAwl(["-p", "hi"], { env, configFile: '{"thinking": "off"}' })).code).toBe(0);
    expect(server.requests.map((r) => r.json().thinking)).toEqual([{ type: "adaptive" }, { type: "disabled" }]);
    expect(server.requests[0]!.json().max_tokens).toBe(32000);
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

describe("AWL_MODEL belongs to the provider AWL_PROVIDER names", () => {
  const env = () => ({ AWL_PROVIDER: "openai", AWL_MODEL: "gpt-4o", OPENAI_API_KEY: "sk-openai", ANTHROPIC_API_KEY: "sk-ant-test" });

  it("--provider anthropic does not send AWL_MODEL's gpt-4o to Anthropic: it says what to set, naming the config file", async () => {
    const run = await runAwl(["--provider", "anthropic", "-p", "hi"], { env: { ...env(), AWL_BASE_URL: server.url } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^awl: no model chosen for provider "anthropic"\n {2}→ pass --model NAME \(e\.g\. --model claude-sonnet-4-5\) or set "providers\.anthropic\.model" in \/.*\/\.config\/awl\/config\.json \(AWL_MODEL is for openai, the provider AWL_PROVIDER names\)\n$/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("--provider anthropic uses providers.anthropic.model from the config file", async () => {
    server.enqueue({ body: splitEvery(readFileSync(new URL("../fixtures/anthropic/text.sse", import.meta.url)), 11) });
    const configFile = JSON.stringify({ providers: { anthropic: { base_url: server.url, model: "claude-from-file" } } });
    const run = await runAwl(["--provider", "anthropic", "-p", "hi"], { env: env(), configFile });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(server.requests[0]!.json().model).toBe("claude-from-file");
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

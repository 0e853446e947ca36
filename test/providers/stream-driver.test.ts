import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Conversation } from "../../src/model/conversation.js";
import type { Message } from "../../src/model/message.js";
import { providerError } from "../../src/providers/errors.js";
import { runStream, type DriverSettings, type WireAdapter } from "../../src/providers/stream-driver.js";
import { recordingReceiver } from "../support/recording-receiver.js";
import { sseData, startReplayServer, type ReplayServer } from "../support/replay-server.js";

/** A minimal wire API: `{"t": "..."}` events are text deltas of block 0, `[DONE]` ends, `{"fail": "..."}` is an in-stream error. */
function fakeAdapter(url: string): WireAdapter {
  return {
    terminalMarker: "data: [DONE]",
    buildRequest: (conversation) => ({
      url,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ n: conversation.length }),
    }),
    createAssembler(receiver) {
      let text = "";
      let open = false;
      return {
        onEvent(event) {
          if (event.data === "[DONE]") return "done";
          const payload = JSON.parse(event.data) as { t?: string; fail?: string };
          if (payload.fail) return providerError("stream_error", payload.fail);
          if (!open) receiver.onBlockStart?.("text", 0);
          open = true;
          text += payload.t;
          receiver.onContentDelta?.(0, payload.t!);
          return undefined;
        },
        finish(): Message {
          const message: Message = { role: "assistant", content: [{ type: "text", text }], stop_reason: "end_turn" };
          if (open) receiver.onBlockComplete?.(0, message.content[0]!);
          return message;
        },
      };
    },
  };
}

const okBody = sseData([{ t: "Hel" }, { t: "lo" }, "[DONE]"]);
const noWait = { "retry-after-ms": "0" };
let server: ReplayServer;
let settings: DriverSettings;

beforeEach(async () => {
  server = await startReplayServer();
  settings = { maxRetries: 3, stallTimeoutMs: 5_000 };
});
afterEach(() => server.close());

async function run(options: { signal?: AbortSignal; url?: string } = {}) {
  const receiver = recordingReceiver();
  const conversation = new Conversation();
  conversation.addUserMessage("hi");
  const result = await runStream(fakeAdapter(options.url ?? `${server.url}/v1/stream`), settings, conversation, receiver, {
    signal: options.signal,
  });
  return { result, receiver };
}

describe("runStream", () => {
  it("streams one message with the Receiver calls in order and sends the built request", async () => {
    server.enqueue({ body: okBody });
    const { result, receiver } = await run();
    expect(result).toEqual({ ok: true, message: { role: "assistant", content: [{ type: "text", text: "Hello" }], stop_reason: "end_turn" } });
    expect(receiver.calls).toEqual(["start assistant", "block_start 0 text", 'delta 0 "Hel"', 'delta 0 "lo"', "block_complete 0 text", "complete end_turn"]);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: "POST", url: "/v1/stream", body: '{"n":1}' });
    expect(server.requests[0]!.headers["content-length"]).toBe("7");
  });

  it("retries a 429 honouring retry-after, telling the receiver, then succeeds", async () => {
    server.enqueue(
      { status: 429, headers: { "content-type": "application/json", "retry-after-ms": "30" }, body: '{"error":{"message":"slow down"}}' },
      { body: okBody },
    );
    const { result, receiver } = await run();
    expect(result.ok).toBe(true);
    expect(receiver.calls[0]).toBe("retry 1 rate_limit");
    expect(receiver.calls.at(-1)).toBe("complete end_turn");
    expect(receiver.retries[0]).toMatchObject({ attempt: 1, max_retries: 3, delay_ms: 30, error: { status: 429, retry_after_ms: 30 } });
    expect(receiver.retries[0]!.error.message).toContain("slow down");
    expect(server.requests.map((r) => r.body)).toEqual(['{"n":1}', '{"n":1}']);
  });

  it("gives up after max retries with onError as the last call", async () => {
    settings.maxRetries = 2;
    for (let i = 0; i < 3; i++) server.enqueue({ status: 500, headers: noWait, body: "boom" });
    const { result, receiver } = await run();
    expect(result).toMatchObject({ ok: false, error: { kind: "server", status: 500, retries: 2 } });
    expect(receiver.calls).toEqual(["retry 1 server", "retry 2 server", "error server"]);
    expect(server.requests).toHaveLength(3);
  });

  it("does not retry when max retries is 0, nor a non-retryable error", async () => {
    settings.maxRetries = 0;
    server.enqueue({ status: 503, headers: noWait, body: "" });
    expect((await run()).receiver.calls).toEqual(["error server"]);
    settings.maxRetries = 3;
    server.enqueue({ status: 401, body: '{"error":{"message":"bad key"}}' });
    const { receiver } = await run();
    expect(receiver.calls).toEqual(["error auth"]);
    expect(receiver.error!.message).toContain("bad key");
  });

  it("does not wait out a retry-after beyond the cap", async () => {
    server.enqueue({ status: 429, headers: { "retry-after": "3600" }, body: "" }, { body: okBody });
    const { result } = await run();
    expect(result).toMatchObject({ ok: false, error: { kind: "rate_limit", retry_after_ms: 3_600_000 } });
    // No retry was made, and the error says so (the CLI must not claim "after 3 retries").
    expect(!result.ok && result.error.retries).toBeUndefined();
    expect(server.requests).toHaveLength(1);
  });

  it("a body that ends cleanly before the terminal marker is truncated, retried, and the retry starts a new message", async () => {
    settings.maxRetries = 1;
    server.enqueue({ body: sseData([{ t: "Hel" }]) }, { body: okBody });
    const { result, receiver } = await run();
    expect(result.ok).toBe(true);
    expect(receiver.calls).toEqual([
      "start assistant",
      "block_start 0 text",
      'delta 0 "Hel"',
      "retry 1 truncated",
      "start assistant",
      "block_start 0 text",
      'delta 0 "Hel"',
      'delta 0 "lo"',
      "block_complete 0 text",
      "complete end_turn",
    ]);
    expect(receiver.retries[0]!.error.message).toContain("ended before data: [DONE]");
  });

  it("a socket killed mid-body is truncated", async () => {
    settings.maxRetries = 0;
    server.enqueue({ body: [sseData([{ t: "Hel" }]), 'data: {"t": "l'], ending: "kill" });
    const { result, receiver } = await run();
    expect(result).toMatchObject({ ok: false, error: { kind: "truncated", retryable: true } });
    expect(receiver.calls.at(-1)).toBe("error truncated");
  });

  it("an unterminated [DONE] at EOF does not count", async () => {
    settings.maxRetries = 0;
    server.enqueue({ body: sseData([{ t: "Hel" }]) + "data: [DONE]" });
    expect((await run()).result).toMatchObject({ ok: false, error: { kind: "truncated" } });
  });

  it("a stream that stalls after headers is a retryable stalled error", async () => {
    settings = { maxRetries: 0, stallTimeoutMs: 150 };
    server.enqueue({ body: sseData([{ t: "Hel" }]), ending: "stall" });
    const { result, receiver } = await run();
    expect(result).toMatchObject({ ok: false, error: { kind: "stalled", retryable: true } });
    expect(result.ok || result.error.message).toContain("no data from");
    expect(receiver.calls).toEqual(["start assistant", "block_start 0 text", 'delta 0 "Hel"', "error stalled"]);
  });

  it("the first-byte timeout bounds the wait for the response head; the stall timeout then governs the body", async () => {
    settings = { maxRetries: 1, stallTimeoutMs: 60_000, firstByteTimeoutMs: 150 };
    // The second response's pieces are 300 ms apart: longer than the first-byte timeout, well within the stall timeout.
    server.enqueue({ ending: "hang" }, { body: [{ data: sseData([{ t: "Hel" }]), delayMs: 0 }, { data: sseData([{ t: "lo" }, "[DONE]"]), delayMs: 300 }] });
    const { result, receiver } = await run();
    expect(result.ok).toBe(true);
    expect(receiver.retries[0]!.error).toMatchObject({ kind: "stalled", message: expect.stringContaining("sent no response: no data from") });
    expect(receiver.retries[0]!.error.message).toContain("for 150 ms");
  });

  it("a server that accepts and never answers is stalled, then retried", async () => {
    settings = { maxRetries: 1, stallTimeoutMs: 150 };
    server.enqueue({ ending: "hang" }, { body: okBody });
    const { result, receiver } = await run();
    expect(result.ok).toBe(true);
    expect(receiver.retries[0]!.error.kind).toBe("stalled");
    expect(receiver.retries[0]!.error.message).toContain("sent no response");
  });

  it("a refused connection is a network error naming the URL to check", async () => {
    settings.maxRetries = 0;
    const closed = await startReplayServer();
    await closed.close();
    const { result } = await run({ url: `${closed.url}/v1/chat/completions` });
    expect(result).toMatchObject({ ok: false, error: { kind: "network", retryable: true } });
    expect(result.ok || result.error.message).toContain(`${closed.url}/v1/chat/completions`);
    expect(result.ok || result.error.message).toContain("connection refused");
  });

  it("an invalid URL is a config error", async () => {
    const { result } = await run({ url: "not a url" });
    expect(result).toMatchObject({ ok: false, error: { kind: "config", retryable: false } });
  });

  it("a 200 that is not an event stream is a clear error, never parsed as SSE", async () => {
    server.enqueue({ headers: { "content-type": "application/json" }, body: 'data: {"t":"x"}\n\n' });
    const { result, receiver } = await run();
    expect(result).toMatchObject({ ok: false, error: { kind: "bad_response", status: 200 } });
    expect(receiver.calls).toEqual(["error bad_response"]);
  });

  it("an in-stream error stops reading and is not retried", async () => {
    server.enqueue({ body: sseData([{ t: "a" }, { fail: "model exploded" }, { t: "never" }, "[DONE]"]) });
    const { result, receiver } = await run();
    expect(result).toMatchObject({ ok: false, error: { kind: "stream_error", message: "model exploded" } });
    expect(receiver.calls).toEqual(["start assistant", "block_start 0 text", 'delta 0 "a"', "error stream_error"]);
  });

  it("cancellation mid-stream is aborted, never retried", async () => {
    const controller = new AbortController();
    server.enqueue({ body: [sseData([{ t: "a" }]), { data: sseData([{ t: "b" }]), delayMs: 10_000 }] });
    const receiver = recordingReceiver();
    const originalDelta = receiver.onContentDelta!;
    receiver.onContentDelta = (index, delta) => {
      originalDelta(index, delta);
      controller.abort();
    };
    const result = await runStream(fakeAdapter(`${server.url}/s`), settings, new Conversation(), receiver, { signal: controller.signal });
    expect(result).toMatchObject({ ok: false, error: { kind: "aborted", retryable: false } });
    expect(receiver.calls).toEqual(["start assistant", "block_start 0 text", 'delta 0 "a"', "error aborted"]);
    expect(server.requests).toHaveLength(1);
  });

  it("cancellation while waiting to retry ends the wait", async () => {
    const controller = new AbortController();
    // A 50 s wait: only the abort can end it within the test's time.
    server.enqueue({ status: 429, headers: { "retry-after": "50" }, body: "" });
    const receiver = recordingReceiver();
    const recordRetry = receiver.onRetry!.bind(receiver);
    receiver.onRetry = (notice) => {
      recordRetry(notice);
      setTimeout(() => controller.abort(), 20);
    };
    const conversation = new Conversation();
    conversation.addUserMessage("hi");
    const result = await runStream(fakeAdapter(`${server.url}/v1/stream`), settings, conversation, receiver, { signal: controller.signal });
    expect(result).toMatchObject({ ok: false, error: { kind: "aborted" } });
    expect(receiver.calls).toEqual(["retry 1 rate_limit", "error aborted"]);
  });

  it("an already aborted signal sends nothing", async () => {
    const { result } = await run({ signal: AbortSignal.abort() });
    expect(result).toMatchObject({ ok: false, error: { kind: "aborted" } });
    expect(server.requests).toHaveLength(0);
  });

  it("a receiver that throws becomes an error value, not a crash", async () => {
    server.enqueue({ body: okBody });
    const receiver = recordingReceiver();
    receiver.onContentDelta = () => {
      throw new Error("ui broke");
    };
    const result = await runStream(fakeAdapter(`${server.url}/s`), settings, new Conversation(), receiver);
    expect(result).toMatchObject({ ok: false, error: { kind: "stream_error" } });
    expect(result.ok || result.error.message).toContain("ui broke");
    expect(receiver.calls.at(-1)).toBe("error stream_error");
  });
});

import { describe, expect, it } from "vitest";
import { classifyHttpError, classifyNonSseResponse, errorMessageFromBody, isEventStream } from "../../src/providers/classify-http-error.js";

const url = "https://api.example.com/v1/chat/completions?api-key=SECRET";
const json = { "content-type": "application/json" };

describe("classifyHttpError", () => {
  it("maps statuses to kinds (SPEC §3 rule 6)", () => {
    const kinds = [401, 403, 400, 404, 413, 422, 429, 529, 408, 500, 502, 503].map((status) => {
      const e = classifyHttpError({ url, status, headers: {}, body: "" });
      return [status, e.kind, e.retryable];
    });
    expect(kinds).toEqual([
      [401, "auth", false],
      [403, "auth", false],
      [400, "bad_request", false],
      [404, "bad_request", false],
      [413, "bad_request", false],
      [422, "bad_request", false],
      [429, "rate_limit", true],
      [529, "overloaded", true],
      [408, "server", true],
      [500, "server", true],
      [502, "server", true],
      [503, "server", true],
    ]);
  });

  it("quotes the provider's JSON message, names the endpoint without its query, and says what to check", () => {
    const e = classifyHttpError({
      url,
      status: 401,
      headers: json,
      body: '{"error":{"message":"Incorrect API key provided: sk-...abc.","type":"invalid_request_error","code":"invalid_api_key"}}',
    });
    expect(e).toMatchObject({ kind: "auth", status: 401, retryable: false });
    expect(e.message).toBe(
      "HTTP 401 Unauthorized from https://api.example.com/v1/chat/completions: Incorrect API key provided: sk-...abc. [invalid_request_error]",
    );
    expect(e.message).not.toContain("SECRET");
  });

  it("carries retry-after as retry_after_ms", () => {
    const e = classifyHttpError({ url, status: 429, headers: { ...json, "retry-after": "2" }, body: '{"error":{"message":"Rate limit reached"}}' });
    expect(e).toMatchObject({ kind: "rate_limit", retryable: true, status: 429, retry_after_ms: 2000 });
    expect(e.message).toContain("Rate limit reached");
  });

  it("gives a short clean excerpt of an HTML error page", () => {
    const html = `<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n${" ".repeat(600)}<!-- padding -->`;
    const e = classifyHttpError({ url, status: 502, headers: { "content-type": "text/html" }, body: html });
    expect(e).toMatchObject({ kind: "server", retryable: true, status: 502 });
    expect(e.message).toBe("HTTP 502 Bad Gateway from https://api.example.com/v1/chat/completions: 502 Bad Gateway");
  });
});

describe("errorMessageFromBody", () => {
  it("reads the common JSON shapes", () => {
    expect(errorMessageFromBody('{"error":"model not found"}')).toBe("model not found");
    expect(errorMessageFromBody('{"object":"error","message":"max_tokens is too large","type":"BadRequestError"}')).toBe("max_tokens is too large");
    expect(errorMessageFromBody('{"detail":"Not Found"}')).toBe("Not Found");
    expect(errorMessageFromBody('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toBe("Overloaded [overloaded_error]");
  });

  it("cuts long text bodies to a clean excerpt", () => {
    const message = errorMessageFromBody(`oops\n\n  ${"x".repeat(1000)}`, "text/plain");
    expect(message.startsWith("oops x")).toBe(true);
    expect(message.length).toBeLessThanOrEqual(301);
    expect(message.endsWith("…")).toBe(true);
  });

  it("strips scripts and tags from HTML without a title", () => {
    expect(errorMessageFromBody("<html><script>var a = 1;</script><body><p>Service&nbsp;down &amp; out</p></body></html>")).toBe(
      "Service down & out",
    );
  });

  it("is empty for an empty body", () => {
    expect(errorMessageFromBody("  \n")).toBe("");
  });
});

describe("classifyNonSseResponse", () => {
  it("is a clear non-retryable error naming what came back", () => {
    const e = classifyNonSseResponse({ url, status: 200, headers: { "content-type": "text/html; charset=utf-8" }, body: "<title>Sign in</title>" });
    expect(e).toMatchObject({ kind: "bad_response", retryable: false, status: 200 });
    expect(e.message).toContain("expected an event stream (text/event-stream)");
    expect(e.message).toContain("text/html; charset=utf-8: Sign in");
    expect(e.message).not.toContain("check the");
  });

  it("recognises event streams by content type", () => {
    expect(isEventStream({ "content-type": "text/event-stream; charset=utf-8" })).toBe(true);
    expect(isEventStream({ "content-type": "Text/Event-Stream" })).toBe(true);
    expect(isEventStream({ "content-type": "application/json" })).toBe(false);
    expect(isEventStream({})).toBe(false);
  });
});

/**
 * Turns an HTTP response that is not a usable stream into a {@link ProviderError} (SPEC §3 rule 6):
 * non-2xx by status (the body is never parsed as SSE), and a 2xx whose body is not `text/event-stream`.
 * The message names the status, the endpoint and the server's own words; what to do is the caller's to say.
 */
import type { IncomingHttpHeaders } from "node:http";
import { createRequire } from "node:module";
import { errorCode, errorFields, kindOfHttpError, type ErrorFields } from "./classify-error-payload.js";
import { providerError, type ProviderError } from "./errors.js";
import { retryAfterMs } from "./retry-delay.js";

/** What the transport collected from a response that will not be streamed. */
export interface HttpFailure {
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as text, possibly cut short by the transport. */
  body: string;
}

const EXCERPT_CHARS = 300;

/**
 * The status texts of node:http, required when a response is classified: by then the request has loaded
 * node:http, and a program that has sent nothing yet (awl's interactive prompt) need not load it (issue 30).
 */
const statusText = (status: number): string => (createRequire(import.meta.url)("node:http") as typeof import("node:http")).STATUS_CODES[status] ?? "";

/** Classifies a non-2xx response by status, with the server's message and any `retry-after` wait. */
export function classifyHttpError(failure: HttpFailure): ProviderError {
  const fields = bodyFields(failure.body);
  const kind = kindOfHttpError(failure.status, fields);
  const detail = errorMessageFromBody(failure.body, contentTypeOf(failure.headers));
  let message = `HTTP ${failure.status} ${statusText(failure.status)}`.trimEnd() + ` from ${describeUrl(failure.url)}`;
  if (detail) message += `: ${detail}`;
  const code = errorCode(fields);
  return providerError(kind, message, { status: failure.status, retry_after_ms: retryAfterMs(failure.headers), ...(code ? { code } : {}) });
}

/** The error fields of a JSON body; none for a body that is not JSON. */
function bodyFields(body: string): ErrorFields {
  const trimmed = body.trim();
  if (!trimmed.startsWith("{")) return { message: trimmed };
  try {
    return errorFields(JSON.parse(trimmed));
  } catch {
    return { message: trimmed };
  }
}

/** Classifies a 2xx response that is not an event stream (a JSON error, an HTML login page, a non-streaming answer). */
export function classifyNonSseResponse(failure: HttpFailure): ProviderError {
  const type = contentTypeOf(failure.headers) || "no content type";
  const detail = errorMessageFromBody(failure.body, type);
  let message = `expected an event stream (text/event-stream) from ${describeUrl(failure.url)} but got HTTP ${failure.status} with ${type}`;
  if (detail) message += `: ${detail}`;
  return providerError("bad_response", message, { status: failure.status });
}

/** True when the response announces an event stream. */
export function isEventStream(headers: IncomingHttpHeaders): boolean {
  return contentTypeOf(headers).startsWith("text/event-stream");
}

/**
 * The human part of an error body: `error.message` / `error` / `message` / `detail` from JSON
 * (OpenAI, Anthropic, vLLM, FastAPI shapes), else a short clean excerpt of HTML or text. Empty when there is nothing.
 */
export function errorMessageFromBody(body: string, contentType = ""): string {
  const trimmed = body.trim();
  if (trimmed === "") return "";
  if (trimmed.startsWith("{") || contentType.includes("json")) {
    try {
      const fromJson = messageFromErrorObject(JSON.parse(trimmed));
      if (fromJson) return excerpt(fromJson);
    } catch {
      /* not JSON after all: fall through to the text excerpt */
    }
  }
  if (contentType.includes("html") || /^<(!doctype|html|head|body)/i.test(trimmed)) return excerpt(htmlToText(trimmed));
  return excerpt(trimmed);
}

/** The message inside an error payload (`{error: {message, type, code}}`, `{error: "..."}`, `{message}`, `{detail}`). */
export function messageFromErrorObject(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (record.error !== undefined && record.error !== null) {
    const inner = record.error;
    if (typeof inner === "string") return inner;
    if (typeof inner === "object") {
      const fields = inner as Record<string, unknown>;
      const text = typeof fields.message === "string" ? fields.message : JSON.stringify(inner);
      const code = [fields.type, fields.code].find((c) => typeof c === "string" && c !== "" && !text.includes(c));
      return code ? `${text} [${code as string}]` : text;
    }
  }
  if (typeof record.message === "string") return record.message;
  if (typeof record.detail === "string") return record.detail;
  if (record.detail !== undefined) return JSON.stringify(record.detail);
  return undefined;
}

function contentTypeOf(headers: IncomingHttpHeaders): string {
  return (headers["content-type"] ?? "").toLowerCase();
}

/** The URL without its query string (which may hold a key). */
export function describeUrl(url: string): string {
  const cut = url.search(/[?#]/);
  return cut === -1 ? url : url.slice(0, cut);
}

function htmlToText(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const source = title && title.trim() !== "" ? title : html.replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ");
  return source
    .replace(/<[^>]*>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}

/** One line of at most 300 characters: a server's multi-line message (a Python traceback) never breaks awl's one-line errors. */
export function excerpt(text: string): string {
  const clean = text.replace(/\s+/g, " ").trim();
  return clean.length <= EXCERPT_CHARS ? clean : `${clean.slice(0, EXCERPT_CHARS)}…`;
}

/** The sign-in flows' HTTP calls: small JSON and form requests with a deadline, their failures as values. */
import { awlVersion } from "../version.js";

/** A response's status and its body as JSON (undefined when the body is not JSON). */
export interface JsonResponse {
  status: number;
  json: unknown;
  /** The body's text, shortened, for messages. */
  text: string;
}

export type HttpOutcome = { ok: true; response: JsonResponse } | { ok: false; message: string };

const TIMEOUT_MS = 30_000;

/** POSTs `form` as `application/x-www-form-urlencoded`, asking for JSON. */
export function postForm(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<HttpOutcome> {
  return request(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams(form).toString() });
}

/** GETs `url`, asking for JSON. */
export function getJson(url: string, headers: Record<string, string> = {}): Promise<HttpOutcome> {
  return request(url, { method: "GET", headers });
}

async function request(url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<HttpOutcome> {
  try {
    const response = await fetch(url, {
      ...init,
      headers: { accept: "application/json", "user-agent": `awl/${awlVersion()}`, ...init.headers },
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: "error",
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { ok: true, response: { status: response.status, json, text: text.replace(/\s+/g, " ").slice(0, 300) } };
  } catch (e) {
    const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : "";
    return { ok: false, message: `${new URL(url).host} could not be reached (${e instanceof Error ? e.message : String(e)}${cause})` };
  }
}

/** `value[key]` when it is a string. */
export function stringField(value: unknown, key: string): string | undefined {
  const field = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof field === "string" ? field : undefined;
}

/** `value[key]` when it is a number. */
export function numberField(value: unknown, key: string): number | undefined {
  const field = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof field === "number" && Number.isFinite(field) ? field : undefined;
}

/**
 * Web search for `awl.web.search` and the bundled `search` tool (docs/std-tools.md, "search"): one configured
 * backend — a SearXNG instance (keyless, self-hosted), Brave Search or Tavily (API keys) — asked on awl's main
 * thread, so a key never enters Lua, a tool result or a session. Results are titles, URLs and snippets; a backend
 * that answers with an error, HTML or anything but its JSON is an error that says which and what came.
 */
import { httpRequest, type HttpGate } from "./http-request.js";
import { resolveSearch, type SearchBackend, type SearchSettings } from "./search-settings.js";

export { SEARCH_BACKENDS, resolveSearch, type SearchBackend, type SearchSettings } from "./search-settings.js";

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export type SearchOutcome = { ok: true; backend: SearchBackend; results: SearchResult[] } | { ok: false; message: string };

const TIMEOUT_MS = 20_000;
const MAX_BYTES = 2 * 1024 * 1024;

/** Searches `query` with the configured backend; at most `count` results. Never throws. */
export async function searchWeb(settings: SearchSettings | undefined, env: NodeJS.ProcessEnv, query: string, count: number, gate: HttpGate, signal: AbortSignal): Promise<SearchOutcome> {
  const resolved = resolveSearch(settings, env);
  if ("error" in resolved) return { ok: false, message: resolved.error };
  const { backend, url, key } = resolved;
  let request: { url: string; method: string; headers: Record<string, string>; body?: Uint8Array };
  if (backend === "searxng") {
    const target = new URL("search", url.endsWith("/") ? url : `${url}/`);
    target.search = new URLSearchParams({ q: query, format: "json" }).toString();
    request = { url: target.href, method: "GET", headers: { accept: "application/json" } };
  } else if (backend === "brave") {
    const target = new URL(url);
    target.search = new URLSearchParams({ q: query, count: String(Math.min(count, 20)) }).toString();
    request = { url: target.href, method: "GET", headers: { accept: "application/json", "x-subscription-token": key! } };
  } else {
    const body = Buffer.from(JSON.stringify({ query, max_results: Math.min(count, 20) }));
    request = { url, method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body };
  }
  const reply = await httpRequest({ ...request, timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES, redirect: "same-host" }, gate, signal);
  if (!reply.ok) return { ok: false, message: `the ${backend} search backend: ${scrub(reply.message, key)}` };
  const text = reply.body.toString("utf8");
  const head = scrub(text.slice(0, 200).replace(/\s+/g, " ").trim(), key);
  if (reply.status >= 400) return { ok: false, message: `the ${backend} search backend answered HTTP ${reply.status}: ${head}` };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const type = reply.headers["content-type"] ?? "no content type";
    return { ok: false, message: `the ${backend} search backend answered ${type}, not JSON: ${head}${backend === "searxng" ? ' (is "json" among the instance\'s search.formats in settings.yml?)' : ""}` };
  }
  const results = resultsOf(backend, data);
  if (!results) return { ok: false, message: `the ${backend} search backend answered JSON without results in its usual shape: ${head}` };
  return { ok: true, backend, results: results.slice(0, count) };
}

function resultsOf(backend: SearchBackend, data: unknown): SearchResult[] | undefined {
  const record = (v: unknown) => (typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {});
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const list = backend === "brave" ? record(record(data).web).results : record(data).results;
  if (!Array.isArray(list)) return backend === "brave" && typeof data === "object" && data !== null && !("error" in data) ? [] : undefined;
  return list
    .map(record)
    .map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(backend === "brave" ? r.description : r.content).replace(/<\/?strong>/g, "") }))
    .filter((r) => r.url !== "");
}

/** The key, should a backend echo it, never goes further. */
function scrub(text: string, key: string | undefined): string {
  return key && key.length >= 4 ? text.split(key).join("[REDACTED]") : text;
}

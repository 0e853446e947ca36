/**
 * Asks an OpenAI-compatible server what it knows of a model the catalogue does not (docs/cost.md):
 * - OpenRouter `GET {base}/models`: `context_length`, `top_provider.max_completion_tokens`, `pricing` (USD per token);
 * - llama.cpp `GET {root}/props`: `default_generation_settings.n_ctx`, the window the server was started with;
 * - vLLM `GET {base}/models`: `max_model_len`; LM Studio and others: `loaded_context_length`, `max_context_length`,
 *   `context_length` on the model's entry.
 * GETs with a short timeout; any failure is "the server did not tell" (undefined), never an error.
 */
import type { IncomingMessage } from "node:http";
import { clientHeaders } from "./client-headers.js";
import type { ProviderSettings } from "./types.js";

export interface ServerModelLimits {
  context_window: number;
  max_output_tokens?: number;
  /** USD per million tokens, exact decimals. */
  prices?: { input?: string; output?: string; cache_read?: string; cache_write?: string };
  /** Which endpoint told. */
  from: string;
}

const TIMEOUT_MS = 3_000;
const BODY_LIMIT = 16 * 1024 * 1024;

/** What the server says of `settings.model`, or undefined when it does not tell (or cannot be reached in time). */
export async function askServerLimits(settings: Pick<ProviderSettings, "baseUrl" | "model" | "apiKey" | "headers">): Promise<ServerModelLimits | undefined> {
  const base = settings.baseUrl.replace(/\/+$/, "").replace(/\/chat\/completions$/, "");
  const root = base.replace(/\/v1$/, "");
  const headers: Record<string, string> = { accept: "application/json", ...clientHeaders(settings) };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  const [props, models] = await Promise.all([getJson(`${root}/props`, headers), getJson(`${base}/models`, headers)]);
  const nCtx = positive(record(record(props)?.default_generation_settings)?.n_ctx) ?? positive(record(props)?.n_ctx);
  const entry = modelEntry(models, settings.model);
  const fromModels = entry ? limitsOfEntry(entry) : undefined;
  if (nCtx !== undefined) return { ...fromModels, context_window: nCtx, from: `${root}/props` };
  return fromModels ? { ...fromModels, from: `${base}/models` } : undefined;
}

function limitsOfEntry(entry: Record<string, unknown>): Omit<ServerModelLimits, "from"> | undefined {
  const window =
    positive(entry.context_length) ?? positive(entry.max_model_len) ?? positive(entry.loaded_context_length) ?? positive(entry.max_context_length);
  if (window === undefined) return undefined;
  const out: Omit<ServerModelLimits, "from"> = { context_window: window };
  const maxOutput = positive(record(entry.top_provider)?.max_completion_tokens);
  if (maxOutput !== undefined) out.max_output_tokens = maxOutput;
  const pricing = record(entry.pricing);
  if (pricing) {
    const prices: NonNullable<ServerModelLimits["prices"]> = {};
    const fields = [["prompt", "input"], ["completion", "output"], ["input_cache_read", "cache_read"], ["input_cache_write", "cache_write"]] as const;
    for (const [wire, name] of fields) {
      const perMillion = perTokenToPerMillion(pricing[wire]);
      if (perMillion !== undefined) prices[name] = perMillion;
    }
    if (Object.keys(prices).length > 0) out.prices = prices;
  }
  return out;
}

/** The `/models` entry for `model`: by id (exact, then case-insensitive), else the only one a single-model server lists. */
function modelEntry(body: unknown, model: string): Record<string, unknown> | undefined {
  const data = record(body)?.data;
  if (!Array.isArray(data)) return undefined;
  const entries = data.map(record).filter((e): e is Record<string, unknown> => e !== undefined);
  return entries.find((e) => e.id === model) ?? entries.find((e) => typeof e.id === "string" && e.id.toLowerCase() === model.toLowerCase()) ??
    (entries.length === 1 ? entries[0] : undefined);
}

/** "0.000003" USD per token → "3" per million, exactly (a decimal shift; OpenRouter's "-1" means variable: unknown). */
export function perTokenToPerMillion(value: unknown): string | undefined {
  const text = typeof value === "number" && Number.isFinite(value) ? value.toFixed(12) : value;
  if (typeof text !== "string" || !/^\d+(\.\d+)?$/.test(text)) return undefined;
  const [whole, fraction = ""] = text.split(".");
  const shifted = (whole! + fraction.padEnd(6, "0").slice(0, 6)).replace(/^0+(?=\d)/, "");
  const rest = fraction.slice(6).replace(/0+$/, "");
  const result = rest ? `${shifted}.${rest}` : shifted;
  // At most 6 decimals per million (a pico-dollar per token); finer prices do not exist.
  return /^\d+(\.\d{1,6})?$/.test(result) ? result : undefined;
}

/** GETs `url` as JSON with a short timeout; any failure (a refusal, a non-2xx, a body that is not JSON) is undefined. */
export async function getJson(url: string, headers: Record<string, string>): Promise<unknown> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
  const transport = parsed.protocol === "https:" ? await import("node:https") : await import("node:http");
  return new Promise((resolve) => {
    const req = transport.get(parsed, { headers, timeout: TIMEOUT_MS }, (res: IncomingMessage) => {
      if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
        res.resume();
        resolve(undefined);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > BODY_LIMIT) req.destroy();
        else chunks.push(chunk);
      });
      res.on("end", () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        } catch {
          resolve(undefined);
        }
      });
      res.on("error", () => resolve(undefined));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(undefined));
  });
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

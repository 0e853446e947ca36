/**
 * The headers that name the client on every request: `User-Agent: awl/VERSION` (some gateways refuse requests
 * without one), OpenRouter's attribution headers for openrouter.ai, then the user's own (`headers` of a provider
 * profile, docs/cli.md), which win; a header set to "" is left out.
 */
import { awlVersion } from "../version.js";
import type { ProviderSettings } from "./types.js";

/**
 * OpenRouter names the app by `X-Title` (and links it by `HTTP-Referer`, a site URL awl does not have: a user
 * sets it in the profile's `headers`) in its rankings and activity (openrouter.ai/docs/app-attribution).
 */
const OPENROUTER_ATTRIBUTION: Readonly<Record<string, string>> = { "X-Title": "awl" };

/** The client headers for these settings, names lower-cased so a user's own spelling replaces awl's default. */
export function clientHeaders(settings: Pick<ProviderSettings, "baseUrl" | "headers">): Record<string, string> {
  const merged = new Map<string, string>([["user-agent", `awl/${awlVersion()}`]]);
  if (isOpenRouter(settings.baseUrl)) for (const [name, value] of Object.entries(OPENROUTER_ATTRIBUTION)) merged.set(name.toLowerCase(), value);
  for (const [name, value] of Object.entries(settings.headers ?? {})) merged.set(name.toLowerCase(), value);
  const headers: Record<string, string> = {};
  for (const [name, value] of merged) if (value !== "") headers[name] = value;
  return headers;
}

function isOpenRouter(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === "openrouter.ai";
  } catch {
    return false;
  }
}

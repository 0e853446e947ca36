/**
 * The web search settings (docs/config.md, `search`) and the backend, endpoint and key they come to with the
 * environment. Apart from search.ts, which does the requests, so that what opens the tools reads them cheaply.
 */
export const SEARCH_BACKENDS = ["searxng", "brave", "tavily", "provider"] as const;
export type SearchBackend = (typeof SEARCH_BACKENDS)[number];

/** The `search` config key (docs/config.md), with the environment's keys filled in. */
export interface SearchSettings {
  backend?: SearchBackend;
  /** SearXNG: the instance's URL (required); Brave, Tavily: another endpoint than theirs (tests, proxies). */
  url?: string;
  api_key?: string;
  /** The environment variable holding the key (default BRAVE_API_KEY, TAVILY_API_KEY). */
  api_key_env?: string;
}

/** The backends awl asks itself, with a key. */
type KeyedBackend = Exclude<SearchBackend, "searxng" | "provider">;

const ENDPOINTS: Record<KeyedBackend, string> = {
  brave: "https://api.search.brave.com/res/v1/web/search",
  tavily: "https://api.tavily.com/search",
};
const KEY_VARIABLES: Record<KeyedBackend, string> = { brave: "BRAVE_API_KEY", tavily: "TAVILY_API_KEY" };

/**
 * `settings` with the backend and key the environment gives written in (docs/std-tools.md, "search"): the
 * environment Lua and the programs see holds no `*_API_KEY` (util/secrets.ts `childEnv`), so the key is taken
 * from awl's own environment when the tools open. Unchanged when the environment gives none.
 */
export function withEnvironmentKey(settings: SearchSettings | undefined, env: NodeJS.ProcessEnv): SearchSettings | undefined {
  const resolved = resolveSearch(settings, env);
  if ("error" in resolved) return settings;
  return { ...settings, backend: resolved.backend, ...(resolved.key !== undefined && { api_key: resolved.key }) };
}

/** The backend and key in use, from the settings and the environment; or why there is none (a message for the model and the user). */
export function resolveSearch(settings: SearchSettings | undefined, env: NodeJS.ProcessEnv): { backend: SearchBackend; url: string; key?: string } | { error: string } {
  const backend = settings?.backend ?? (env.BRAVE_API_KEY ? "brave" : env.TAVILY_API_KEY ? "tavily" : undefined);
  const how =
    'set "search" in ~/.config/awl/config.json, e.g. {"search": {"backend": "searxng", "url": "http://localhost:8888"}} ' +
    'for a SearXNG instance of your own, or {"search": {"backend": "brave"}} with BRAVE_API_KEY (or "tavily" with TAVILY_API_KEY) in the environment';
  if (!backend) return { error: `no web search backend is set up: ${how}` };
  if (backend === "provider") {
    return {
      error:
        'web search is set to run on the provider\'s side ("search": {"backend": "provider"}), which only the anthropic and openai-responses providers offer; ' +
        "this provider has none: switch provider, or set another search backend",
    };
  }
  if (backend === "searxng") {
    if (!settings?.url) return { error: `the searxng search backend needs the instance's URL: ${how}` };
    return { backend, url: settings.url };
  }
  const variable = settings?.api_key_env ?? KEY_VARIABLES[backend];
  const key = settings?.api_key ?? env[variable];
  if (!key) return { error: `the ${backend} search backend needs an API key: set ${variable} in the environment, or "search": {"api_key": ...} in ~/.config/awl/config.json` };
  return { backend, url: settings?.url ?? ENDPOINTS[backend], key };
}

/**
 * Settings of the providers used through a sign-in (`copilot`, `chatgpt`): no API key, and an endpoint no setting
 * changes. A base URL from any level (flag, variable, either config file) is an error rather than a silent
 * choice, because it would send the user's sign-in token there: a cloned project's config must not be able to
 * redirect it (issue 22's CVE-2026-21852). awl's own tests stand a local fake in with `AWL_LOGIN_TEST_SERVER`,
 * an environment variable no config file can set.
 */
import type { LoginProvider } from "../login/types.js";
import type { ProviderSettings } from "../providers/types.js";
import type { ConfigError } from "./errors.js";
import { awlDataDir } from "./paths.js";

/** The model used when none is chosen: one every plan includes. */
export const LOGIN_DEFAULT_MODELS: Readonly<Record<LoginProvider, string>> = { copilot: "gpt-4.1", chatgpt: "gpt-5.4" };

/**
 * Where sign-ins are kept for `env` (awl's data folder; `AWL_LOGIN_STORE=file`: the private file only) and the
 * test server standing in for the vendors (`AWL_LOGIN_TEST_SERVER`, for awl's own tests).
 */
export function loginPlace(env: NodeJS.ProcessEnv): NonNullable<ProviderSettings["login"]> {
  const testServer = env.AWL_LOGIN_TEST_SERVER?.trim();
  return { dataDir: awlDataDir(env), ...(env.AWL_LOGIN_STORE === "file" && { fileOnly: true }), ...(testServer && { testServer }) };
}

/** The resolved pieces of a login provider's settings, or the error that stops the run. */
export function loginSettings(
  provider: LoginProvider,
  settings: ProviderSettings,
  from: { env: NodeJS.ProcessEnv; baseUrl?: { value: string; source: string }; model?: { value: string; source: string } },
): { settings: ProviderSettings; keySource: string; modelSource: string; baseUrlSource: string } | ConfigError {
  if (from.baseUrl) {
    return {
      message: `a base URL is set for provider "${provider}" (${from.baseUrl.source}), whose endpoint is fixed: it would receive your sign-in token`,
      hint: `remove ${from.baseUrl.source}; a proxy or gateway goes with an API-key provider instead`,
    };
  }
  return {
    settings: { ...settings, model: from.model?.value ?? LOGIN_DEFAULT_MODELS[provider], baseUrl: "", login: loginPlace(from.env) },
    keySource: `the sign-in (awl login ${provider})`,
    modelSource: from.model?.source ?? `${provider}'s default`,
    baseUrlSource: `${provider}'s own, fixed`,
  };
}

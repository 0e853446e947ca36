/**
 * The vendors' sign-in and API addresses. They are fixed: no config file, flag or base URL changes where a
 * login's tokens go (a project's config must not send the user's Copilot or ChatGPT token to another host).
 * The one exception is `AWL_LOGIN_TEST_SERVER`, an environment variable for awl's own tests: it maps every
 * address `https://HOST/PATH` to `{server}/HOST/PATH` on a local fake.
 */

export const GITHUB_DEVICE_CODE_URL = "https://github.com/login/device/code";
export const GITHUB_ACCESS_TOKEN_URL = "https://github.com/login/oauth/access_token";
export const GITHUB_USER_URL = "https://api.github.com/user";
export const COPILOT_TOKEN_URL = "https://api.github.com/copilot_internal/v2/token";
/** Copilot's API when its token response names none. */
export const COPILOT_API_URL = "https://api.githubcopilot.com";
export const OPENAI_AUTHORIZE_URL = "https://auth.openai.com/oauth/authorize";
export const OPENAI_TOKEN_URL = "https://auth.openai.com/oauth/token";
/** ChatGPT's Responses API for the plan's models (`{base}/responses`). */
export const CHATGPT_API_URL = "https://chatgpt.com/backend-api/codex";

/** `url`, or its stand-in on the test server when one is set. */
export function endpoint(url: string, testServer: string | undefined): string {
  if (!testServer) return url;
  const parsed = new URL(url);
  return `${testServer.replace(/\/+$/, "")}/${parsed.host}${parsed.pathname}${parsed.search}`;
}

/**
 * Whether a Copilot API address named by GitHub's token response may receive the token: https on
 * `githubcopilot.com` or one of its subdomains (`api.individual.githubcopilot.com`, business and enterprise
 * hosts), or the test server's stand-in for such a host.
 */
export function isCopilotApiUrl(url: string, testServer: string | undefined): boolean {
  let parsed: URL;
  try {
    parsed = new URL(testServer && url.startsWith(`${testServer.replace(/\/+$/, "")}/`) ? `https://${url.slice(testServer.replace(/\/+$/, "").length + 1)}` : url);
  } catch {
    return false;
  }
  const host = parsed.hostname;
  return parsed.protocol === "https:" && (host === "githubcopilot.com" || host.endsWith(".githubcopilot.com"));
}

/**
 * ChatGPT's sign-in, the OAuth flow the codex CLI uses: authorization code with PKCE (S256) and a localhost
 * callback, OpenAI's public client id for it, then the plan's Responses API at
 * `chatgpt.com/backend-api/codex/responses` with the access token and the account id header. The access token
 * is refreshed with the refresh token (which OpenAI may replace on each refresh) before it expires.
 */
import { createHash, randomBytes } from "node:crypto";
import { CHATGPT_API_URL, endpoint, OPENAI_AUTHORIZE_URL, OPENAI_TOKEN_URL } from "./endpoints.js";
import { numberField, postForm, stringField } from "./http.js";
import type { LoginRecord, LoginResult } from "./types.js";

/** The codex CLI's OAuth client; its registered redirects are `http://localhost:1455/auth/callback` (and 1457). */
export const CHATGPT_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";
export const CALLBACK_PORTS = [1455, 1457] as const;
export const CALLBACK_PATH = "/auth/callback";
const SCOPE = "openid profile email offline_access";
/** Where OpenAI puts the ChatGPT account in its tokens' claims. */
const AUTH_CLAIM = "https://api.openai.com/auth";
const PROFILE_CLAIM = "https://api.openai.com/profile";

/** The plan's Responses API base (`{base}/responses`). */
export function chatgptApiUrl(testServer: string | undefined): string {
  return endpoint(CHATGPT_API_URL, testServer);
}

/** The headers ChatGPT's Responses API needs besides the bearer token. */
export function chatgptHeaders(record: LoginRecord): Record<string, string> {
  return { ...(record.account_id && { "chatgpt-account-id": record.account_id }), "openai-beta": "responses=experimental", originator: "awl" };
}

/** A PKCE pair: the verifier kept here, its S256 challenge sent with the authorization request. */
export function createPkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** A random `state`, checked on the callback (a callback another page made up is refused). */
export function createState(): string {
  return randomBytes(32).toString("base64url");
}

/** The page the user signs in on. */
export function authorizeUrl(options: { redirectUri: string; challenge: string; state: string; testServer: string | undefined }): string {
  const url = new URL(endpoint(OPENAI_AUTHORIZE_URL, options.testServer));
  const params: Record<string, string> = {
    response_type: "code",
    client_id: CHATGPT_CLIENT_ID,
    redirect_uri: options.redirectUri,
    scope: SCOPE,
    code_challenge: options.challenge,
    code_challenge_method: "S256",
    id_token_add_organizations: "true",
    codex_cli_simplified_flow: "true",
    state: options.state,
    originator: "codex_cli_rs",
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

/** The authorization code (with the verifier that proves this process asked for it) for tokens. */
export async function exchangeCode(options: { code: string; verifier: string; redirectUri: string; testServer: string | undefined }): Promise<LoginResult<LoginRecord>> {
  const sent = await postForm(endpoint(OPENAI_TOKEN_URL, options.testServer), {
    grant_type: "authorization_code",
    code: options.code,
    redirect_uri: options.redirectUri,
    client_id: CHATGPT_CLIENT_ID,
    code_verifier: options.verifier,
  });
  if (!sent.ok) return sent;
  return recordFrom(sent.response, undefined, "OpenAI did not give tokens for the sign-in");
}

/** A fresh access token for the record's refresh token; OpenAI refusing the refresh token is `revoked`. */
export async function refreshChatgptToken(record: LoginRecord, testServer: string | undefined): Promise<LoginResult<LoginRecord>> {
  const sent = await postForm(endpoint(OPENAI_TOKEN_URL, testServer), { grant_type: "refresh_token", refresh_token: record.refresh_token, client_id: CHATGPT_CLIENT_ID });
  if (!sent.ok) return sent;
  const { status, json } = sent.response;
  if (status === 400 || status === 401) {
    const error = typeof json === "object" && json !== null ? (json as Record<string, unknown>).error : undefined;
    const code = typeof error === "string" ? error : stringField(error, "code");
    return { ok: false, revoked: true, message: `OpenAI refused the stored sign-in${code ? ` (${code})` : ""}` };
  }
  return recordFrom(sent.response, record, "OpenAI's refresh answer could not be read");
}

function recordFrom(response: { status: number; json: unknown; text: string }, previous: LoginRecord | undefined, failure: string): LoginResult<LoginRecord> {
  const { status, json, text } = response;
  const access = stringField(json, "access_token");
  const refresh = stringField(json, "refresh_token") ?? previous?.refresh_token;
  if (status !== 200 || !access || !refresh) return { ok: false, message: `${failure} (HTTP ${status}: ${text})` };
  const claims = { ...jwtClaims(stringField(json, "id_token")), ...jwtClaims(access) };
  const auth = claims[AUTH_CLAIM];
  const profile = claims[PROFILE_CLAIM];
  const accountId = stringField(auth, "chatgpt_account_id") ?? previous?.account_id;
  const plan = stringField(auth, "chatgpt_plan_type") ?? previous?.plan;
  const email = stringField(profile, "email") ?? stringField(claims, "email") ?? previous?.account;
  const expiresIn = numberField(json, "expires_in");
  const exp = numberField(claims, "exp");
  const expiresAt = expiresIn !== undefined ? Date.now() + expiresIn * 1000 : exp !== undefined ? exp * 1000 : Date.now() + 3600_000;
  return {
    ok: true,
    value: { version: 1, provider: "chatgpt", refresh_token: refresh, access_token: access, expires_at: expiresAt, ...(accountId && { account_id: accountId }), ...(plan && { plan }), ...(email && { account: email }) },
  };
}

/** The claims of a JWT's payload (not verified: they only name the account; the server checks the token). */
function jwtClaims(token: string | undefined): Record<string, unknown> {
  const payload = token?.split(".")[1];
  if (!payload) return {};
  try {
    const value: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

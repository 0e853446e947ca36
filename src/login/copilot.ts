/**
 * GitHub Copilot's sign-in: GitHub's OAuth device flow (a code the user enters at github.com/login/device), then
 * GitHub's token for Copilot's short-lived API token (about 30 minutes), fetched again before it expires.
 * Copilot's API is OpenAI-compatible (`{api}/chat/completions`).
 */
import { awlVersion } from "../version.js";
import { COPILOT_API_URL, COPILOT_TOKEN_URL, endpoint, GITHUB_ACCESS_TOKEN_URL, GITHUB_DEVICE_CODE_URL, GITHUB_USER_URL, isCopilotApiUrl } from "./endpoints.js";
import { getJson, numberField, postForm, stringField } from "./http.js";
import type { LoginRecord, LoginResult } from "./types.js";

/** The OAuth app GitHub's own Copilot clients sign in with (VS Code, copilot.vim; also opencode, pi). */
export const COPILOT_CLIENT_ID = "Iv1.b507a08c87ecfe98";

/**
 * Headers Copilot's API expects from a chat client: the integration (`vscode-chat`, the one GitHub's API serves
 * third-party chat clients under, as opencode and pi send) and the editor, which names awl.
 */
export function copilotHeaders(): Record<string, string> {
  return { "copilot-integration-id": "vscode-chat", "editor-version": `awl/${awlVersion()}`, "editor-plugin-version": `awl/${awlVersion()}`, "openai-intent": "conversation-edits" };
}

/** What the user is shown: the code to enter and where. */
export interface DeviceCode {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  /** Seconds between polls (GitHub's `interval`). */
  interval: number;
  /** Seconds the code is valid. */
  expiresIn: number;
}

export async function startDeviceFlow(testServer: string | undefined): Promise<LoginResult<DeviceCode>> {
  const sent = await postForm(endpoint(GITHUB_DEVICE_CODE_URL, testServer), { client_id: COPILOT_CLIENT_ID, scope: "read:user" });
  if (!sent.ok) return sent;
  const { json, status, text } = sent.response;
  const deviceCode = stringField(json, "device_code");
  const userCode = stringField(json, "user_code");
  const verificationUri = stringField(json, "verification_uri");
  if (status !== 200 || !deviceCode || !userCode || !verificationUri) return { ok: false, message: `GitHub did not start the device sign-in (HTTP ${status}: ${text})` };
  return { ok: true, value: { deviceCode, userCode, verificationUri, interval: numberField(json, "interval") ?? 5, expiresIn: numberField(json, "expires_in") ?? 900 } };
}

/** Polls until the user has entered the code (GitHub's OAuth token), it expired, or they refused. */
export async function pollDeviceFlow(code: DeviceCode, testServer: string | undefined, sleep: (ms: number) => Promise<void>): Promise<LoginResult<string>> {
  const deadline = Date.now() + code.expiresIn * 1000;
  let interval = code.interval;
  while (Date.now() < deadline) {
    await sleep(interval * 1000);
    const sent = await postForm(endpoint(GITHUB_ACCESS_TOKEN_URL, testServer), { client_id: COPILOT_CLIENT_ID, device_code: code.deviceCode, grant_type: "urn:ietf:params:oauth:grant-type:device_code" });
    if (!sent.ok) return sent;
    const { json, status, text } = sent.response;
    const token = stringField(json, "access_token");
    if (token) return { ok: true, value: token };
    const error = stringField(json, "error");
    if (error === "authorization_pending") continue;
    if (error === "slow_down") {
      interval = numberField(json, "interval") ?? interval + 5;
      continue;
    }
    if (error === "expired_token") break;
    if (error === "access_denied") return { ok: false, message: "the sign-in was refused on GitHub" };
    return { ok: false, message: `GitHub ended the device sign-in (HTTP ${status}: ${stringField(json, "error_description") ?? error ?? text})` };
  }
  return { ok: false, message: `the code ${code.userCode} expired before it was entered` };
}

/** The GitHub login of the token's user, for `awl config` (undefined when GitHub does not say). */
export async function githubLogin(githubToken: string, testServer: string | undefined): Promise<string | undefined> {
  const sent = await getJson(endpoint(GITHUB_USER_URL, testServer), { authorization: `token ${githubToken}` });
  return sent.ok && sent.response.status === 200 ? stringField(sent.response.json, "login") : undefined;
}

/**
 * A fresh Copilot API token for GitHub's token: `record` with `access_token`, `expires_at` and `api_base_url`
 * replaced. GitHub refusing the token itself (401) is `revoked`; no Copilot subscription (403, 404) is said.
 */
export async function refreshCopilotToken(record: LoginRecord, testServer: string | undefined): Promise<LoginResult<LoginRecord>> {
  const sent = await getJson(endpoint(COPILOT_TOKEN_URL, testServer), { authorization: `token ${record.refresh_token}`, ...copilotHeaders() });
  if (!sent.ok) return sent;
  const { json, status, text } = sent.response;
  if (status === 401) return { ok: false, revoked: true, message: "GitHub refused the stored sign-in (expired or revoked)" };
  if (status === 403 || status === 404) return { ok: false, revoked: true, message: `GitHub has no Copilot subscription for this account (HTTP ${status}: ${stringField(json, "message") ?? text})` };
  const token = stringField(json, "token");
  const expiresAt = numberField(json, "expires_at");
  if (status !== 200 || !token || expiresAt === undefined) return { ok: false, message: `GitHub's Copilot token answer could not be read (HTTP ${status}: ${text})` };
  const endpoints = typeof json === "object" && json !== null ? (json as Record<string, unknown>).endpoints : undefined;
  const named = stringField(endpoints, "api");
  // GitHub names the API host of the account's plan; anything but a Copilot host is not given the token.
  const api = named && isCopilotApiUrl(named, testServer) ? named : endpoint(COPILOT_API_URL, testServer);
  const sku = stringField(json, "sku");
  return { ok: true, value: { ...record, access_token: token, expires_at: expiresAt * 1000, api_base_url: api.replace(/\/+$/, ""), ...(sku && { plan: sku }) } };
}

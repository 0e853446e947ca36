/** What a sign-in (`awl login PROVIDER`) keeps, and where awl keeps it (docs/providers.md, "Sign-in"). */

/** The providers a user signs in to instead of setting an API key. */
export const LOGIN_PROVIDERS = ["copilot", "chatgpt"] as const;
export type LoginProvider = (typeof LOGIN_PROVIDERS)[number];

/** Whether `name` is a provider used through a sign-in. */
export function isLoginProvider(name: string): name is LoginProvider {
  return (LOGIN_PROVIDERS as readonly string[]).includes(name);
}

/**
 * One provider's sign-in as stored (keychain entry or private file): a versioned JSON object. The tokens are
 * credentials: never printed, never in a session (they are scrubbed like API keys).
 */
export interface LoginRecord {
  version: 1;
  provider: LoginProvider;
  /** Who signed in, for `awl config` (a GitHub login, a ChatGPT e-mail), when the server said. */
  account?: string;
  /** The subscription (`plus`, `pro`; Copilot's `sku`), when the server said. */
  plan?: string;
  /** The long-lived token: GitHub's OAuth token (Copilot), the OAuth refresh token (ChatGPT). */
  refresh_token: string;
  /** The short-lived token sent with requests: Copilot's API token, ChatGPT's access token. */
  access_token?: string;
  /** When `access_token` expires, in milliseconds since the epoch. */
  expires_at?: number;
  /** Copilot: the API base URL its token response names (`endpoints.api`). */
  api_base_url?: string;
  /** ChatGPT: the account id sent as `chatgpt-account-id`. */
  account_id?: string;
}

/** The secrets of a record: what scrubbers replace wherever awl writes or prints. */
export function recordSecrets(record: LoginRecord | undefined): string[] {
  return record ? [record.refresh_token, record.access_token ?? ""].filter((s) => s !== "") : [];
}

/**
 * A sign-in step's outcome. `revoked`: the server refused the stored token itself (expired, revoked, signed out
 * elsewhere), so only a new `awl login` helps.
 */
export type LoginResult<T> = { ok: true; value: T } | { ok: false; message: string; revoked?: boolean };

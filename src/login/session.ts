/**
 * A provider's sign-in while awl runs: the stored record, its short-lived token fetched again before it expires
 * (and saved back), and a clear error naming `awl login PROVIDER` when there is none or the server refused it.
 */
import { providerError, type ProviderError } from "../providers/errors.js";
import type { ProviderSettings } from "../providers/types.js";
import { announceSecrets } from "../util/late-secrets.js";
import { LoginStore } from "./store.js";
import { recordSecrets, type LoginProvider, type LoginRecord, type LoginResult } from "./types.js";

/** A token this close to its expiry is refreshed before a request (a request and its retries fit in it). */
export const REFRESH_MARGIN_MS = 5 * 60_000;

/** The providers' names as users know them. */
export const LOGIN_LABELS: Readonly<Record<LoginProvider, string>> = { copilot: "GitHub Copilot", chatgpt: "ChatGPT" };

/** Fetches a fresh short-lived token for a record (the provider's own flow). */
export type Refresher = (record: LoginRecord, testServer: string | undefined) => Promise<LoginResult<LoginRecord>>;

export type CurrentLogin = { ok: true; record: LoginRecord; refreshed: boolean } | { ok: false; error: ProviderError };

/** The `code` of errors only a new sign-in mends (the hint says `awl login PROVIDER`). */
export const LOGIN_REQUIRED = "login_required";

/** The sessions of this process, one per provider and data folder: sub-agents and `/model` share one refresh. */
const shared = new Map<string, LoginSession>();

/** The process's session for `provider`'s sign-in kept in `settings.dataDir` (made on first use). */
export function sharedLoginSession(provider: LoginProvider, settings: NonNullable<ProviderSettings["login"]>, refresh: Refresher): LoginSession {
  const key = JSON.stringify([provider, settings.dataDir, settings.fileOnly === true, settings.testServer ?? ""]);
  let session = shared.get(key);
  if (!session) shared.set(key, (session = new LoginSession(provider, settings, refresh)));
  return session;
}

export class LoginSession {
  private record: LoginRecord | undefined;
  private pending: Promise<CurrentLogin> | undefined;
  private readonly store: LoginStore;

  constructor(
    readonly provider: LoginProvider,
    private readonly settings: NonNullable<ProviderSettings["login"]>,
    private readonly refresh: Refresher,
    private readonly now: () => number = Date.now,
  ) {
    this.store = new LoginStore(settings);
  }

  /**
   * The sign-in with a token valid for at least {@link REFRESH_MARGIN_MS} (refreshed first when needed, or always
   * when `force`: the server refused the token it had). Calls made at once share one refresh.
   */
  current(force = false): Promise<CurrentLogin> {
    this.pending ??= this.fetch(force).finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetch(force: boolean): Promise<CurrentLogin> {
    if (!this.record) {
      const loaded = await this.store.load(this.provider);
      if (!loaded.ok) return this.required(`${loaded.problem}`);
      if (!loaded.record) return this.required(`not signed in to ${LOGIN_LABELS[this.provider]}`);
      this.record = loaded.record;
    }
    if (!force && this.isFresh(this.record)) return { ok: true, record: this.record, refreshed: false };
    // Another awl process may have refreshed it meanwhile (ChatGPT replaces the refresh token each time: the old
    // one would be refused): the stored record is read again first.
    const stored = await this.store.load(this.provider);
    if (stored.ok && stored.record && stored.record.access_token !== this.record.access_token) {
      this.record = stored.record;
      if (this.isFresh(stored.record)) return { ok: true, record: stored.record, refreshed: true };
    }
    const record = this.record;
    const refreshed = await this.refresh(record, this.settings.testServer);
    if (!refreshed.ok) {
      if (refreshed.revoked) return this.required(`the ${LOGIN_LABELS[this.provider]} sign-in no longer works: ${refreshed.message}`);
      return { ok: false, error: providerError("network", `the ${LOGIN_LABELS[this.provider]} sign-in could not be refreshed: ${refreshed.message}`) };
    }
    this.record = refreshed.value;
    announceSecrets(recordSecrets(refreshed.value));
    try {
      await this.store.save(refreshed.value);
    } catch {
      // Kept for this run; the next one refreshes again from the stored long-lived token.
    }
    return { ok: true, record: refreshed.value, refreshed: true };
  }

  private isFresh(record: LoginRecord): boolean {
    return record.access_token !== undefined && record.expires_at !== undefined && record.expires_at - this.now() > REFRESH_MARGIN_MS;
  }

  private required(what: string): CurrentLogin {
    return { ok: false, error: providerError("auth", `${what}; sign in with \`awl login ${this.provider}\``, { code: LOGIN_REQUIRED }) };
  }
}

/**
 * Where sign-ins are kept: the OS keychain (keychain.ts), else a private file, `logins/PROVIDER.json` under awl's
 * data folder with mode 0600 in a 0700 folder, and awl says so when it falls back (a headless Linux has no
 * keychain or no D-Bus). `AWL_LOGIN_STORE=file` keeps them in the file without trying the keychain.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { keychainDelete, keychainGet, keychainGetSync, keychainSet } from "./keychain.js";
import { LOGIN_PROVIDERS, recordSecrets, type LoginProvider, type LoginRecord } from "./types.js";

/** Where the store lives: awl's data folder, and whether to skip the keychain. */
export interface LoginStoreSettings {
  dataDir: string;
  /** Keep sign-ins in the private file only (`AWL_LOGIN_STORE=file`). */
  fileOnly?: boolean;
}

/** Where a sign-in was found or put. */
export type StoreKind = "keychain" | "file";

export interface SavedLogin {
  where: StoreKind;
  /** The private file, when it was used. */
  file?: string;
  /** Why the keychain was not used, when it was tried and failed. */
  keychainProblem?: string;
}

export type LoadedLogin =
  | { ok: true; record: LoginRecord; where: StoreKind; file?: string }
  | { ok: true; record?: undefined }
  /** The store could not be read (a locked keychain, a damaged file): `problem` says what and where. */
  | { ok: false; problem: string };

export class LoginStore {
  constructor(private readonly settings: LoginStoreSettings) {}

  /** The private file of `provider`'s sign-in. */
  file(provider: LoginProvider): string {
    return join(this.settings.dataDir, "logins", `${provider}.json`);
  }

  /** The keychain entry's service name: awl's, with the data folder (one keychain entry per awl home). */
  private get service(): string {
    return `awl (${this.settings.dataDir})`;
  }

  async load(provider: LoginProvider): Promise<LoadedLogin> {
    const file = this.file(provider);
    if (existsSync(file)) return this.fromFile(provider, file);
    if (this.settings.fileOnly) return { ok: true };
    const got = await keychainGet(this.service, provider);
    // No keychain at all (headless Linux) holds nothing; one that refused (locked) is said.
    if (!got.ok) return isAbsent(got.reason) ? { ok: true } : { ok: false, problem: `the OS keychain could not be read (${got.reason})` };
    if (got.value === null) return { ok: true };
    const record = parseRecord(got.value, provider);
    if (!record) return { ok: false, problem: `the ${provider} sign-in in the OS keychain (service "${this.service}") is not one awl wrote` };
    return { ok: true, record, where: "keychain" };
  }

  /**
   * The stored sign-in without waiting, or undefined (none, or unreadable): for the list of secrets scrubbed from
   * everything awl writes, made before a run starts. Touches the keychain only when `keychain` is true.
   */
  loadSync(provider: LoginProvider, keychain: boolean): LoginRecord | undefined {
    const file = this.file(provider);
    if (existsSync(file)) {
      const read = this.fromFile(provider, file);
      return read.ok ? read.record : undefined;
    }
    if (!keychain || this.settings.fileOnly) return undefined;
    const got = keychainGetSync(this.service, provider);
    return got.ok && got.value !== null ? parseRecord(got.value, provider) : undefined;
  }

  /** Stores `record`: in the keychain when it can be used (the private file is then removed), else in the file. */
  async save(record: LoginRecord): Promise<SavedLogin> {
    const text = JSON.stringify(record);
    const file = this.file(record.provider);
    let keychainProblem: string | undefined;
    if (!this.settings.fileOnly) {
      const set = await keychainSet(this.service, record.provider, text);
      if (set.ok) {
        rmSync(file, { force: true });
        return { where: "keychain" };
      }
      keychainProblem = set.reason;
      // A store that failed half-way may keep a copy (Linux: the kernel's key cache in front of an absent Secret
      // Service): removed, so the token is only where awl says it is.
      await keychainDelete(this.service, record.provider);
    }
    writePrivateFile(file, `${text}\n`);
    return { where: "file", file, ...(keychainProblem !== undefined && { keychainProblem }) };
  }

  /**
   * Removes `provider`'s sign-in from both places. `removed` lists where one was; `problem` says why the keychain
   * could not be asked (its entry, if any, is then still there).
   */
  async remove(provider: LoginProvider): Promise<{ removed: StoreKind[]; problem?: string }> {
    const removed: StoreKind[] = [];
    const file = this.file(provider);
    if (existsSync(file)) {
      rmSync(file, { force: true });
      removed.push("file");
    }
    if (this.settings.fileOnly) return { removed };
    const deleted = await keychainDelete(this.service, provider);
    if (deleted.ok && deleted.value) removed.push("keychain");
    // No keychain at all (headless Linux): nothing can be stored there, so nothing is left behind.
    return deleted.ok || removed.length > 0 || isAbsent(deleted.reason) ? { removed } : { removed, problem: deleted.reason };
  }

  private fromFile(provider: LoginProvider, file: string): LoadedLogin {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      return { ok: false, problem: `${file} could not be read (${e instanceof Error ? e.message : String(e)})` };
    }
    const record = parseRecord(text, provider);
    if (!record) return { ok: false, problem: `${file} is not a ${provider} sign-in awl wrote (damaged or edited)` };
    return { ok: true, record, where: "file", file };
  }
}

/** A keychain that is simply not there (no Secret Service, no D-Bus) rather than one that refused. */
function isAbsent(reason: string): boolean {
  return /platform storage|no (secret )?service|dbus|d-bus|not available|could not be loaded/i.test(reason);
}

/** Writes `text` to `file` readable by the user only: a 0600 file in a 0700 folder, replaced atomically. */
function writePrivateFile(file: string, text: string): void {
  const dir = join(file, "..");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o600, flag: "w" });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

/** A stored record, checked; undefined when the text is not one awl wrote for `provider`. */
export function parseRecord(text: string, provider: LoginProvider): LoginRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (r.version !== 1 || r.provider !== provider || typeof r.refresh_token !== "string" || r.refresh_token === "") return undefined;
  for (const key of ["account", "plan", "access_token", "api_base_url", "account_id"]) if (r[key] !== undefined && typeof r[key] !== "string") return undefined;
  if (r.expires_at !== undefined && typeof r.expires_at !== "number") return undefined;
  return value as LoginRecord;
}

/**
 * The tokens of every stored sign-in, for the scrubbers (what awl writes or prints never holds them): the private
 * files' always (a tool could print one), the keychain's only for `inUse`, the provider this run signs in with.
 */
export function storedLoginSecrets(settings: LoginStoreSettings, inUse: string): string[] {
  const store = new LoginStore(settings);
  return LOGIN_PROVIDERS.flatMap((provider) => recordSecrets(store.loadSync(provider, provider === inUse)));
}

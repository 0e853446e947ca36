/**
 * The OS keychain (macOS Keychain, Windows Credential Manager, the Secret Service over D-Bus on Linux) through
 * `@napi-rs/keyring`, a native module loaded on first use only: by `awl login`/`logout` and by the providers that
 * use a sign-in, never at start-up otherwise. Every failure (no keychain, no D-Bus, a locked keychain, the module
 * missing for this platform) is a value with the reason, never an exception.
 */
import { createRequire } from "node:module";

type Keyring = typeof import("@napi-rs/keyring");

/** A keychain call's outcome: its value, or why the keychain could not be used. */
export type KeychainResult<T> = { ok: true; value: T } | { ok: false; reason: string };

let keyring: Keyring | Error | undefined;

/**
 * On Linux the Secret Service only (GNOME Keyring, KWallet): the library would otherwise fall back to the kernel's
 * key cache, which forgets everything at logout, and awl's own fallback (a private file) is the better one.
 */
const OPTIONS = { linux: { store: "secret-service" as const } };

function load(): Keyring | Error {
  if (keyring === undefined) {
    try {
      keyring = createRequire(import.meta.url)("@napi-rs/keyring") as Keyring;
    } catch (e) {
      keyring = new Error(`the keychain module could not be loaded (${e instanceof Error ? e.message.split("\n")[0] : String(e)})`);
    }
  }
  return keyring;
}

function attempt<T>(call: (k: Keyring) => T): KeychainResult<T> {
  const k = load();
  if (k instanceof Error) return { ok: false, reason: k.message };
  try {
    return { ok: true, value: call(k) };
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

async function attemptAsync<T>(call: (k: Keyring) => Promise<T>): Promise<KeychainResult<T>> {
  const k = load();
  if (k instanceof Error) return { ok: false, reason: k.message };
  try {
    return { ok: true, value: await call(k) };
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

/** The secret stored for `service`/`account`, null when there is none. */
export function keychainGet(service: string, account: string): Promise<KeychainResult<string | null>> {
  return attemptAsync((k) => new k.AsyncEntry(service, account, OPTIONS).getPassword());
}

/** The same, synchronously (for the scrubber's list of secrets, made before anything else runs). */
export function keychainGetSync(service: string, account: string): KeychainResult<string | null> {
  return attempt((k) => new k.Entry(service, account, OPTIONS).getPassword() ?? null);
}

export function keychainSet(service: string, account: string, secret: string): Promise<KeychainResult<void>> {
  return attemptAsync((k) => new k.AsyncEntry(service, account, OPTIONS).setPassword(secret));
}

/** Deletes the entry; true when there was one. */
export function keychainDelete(service: string, account: string): Promise<KeychainResult<boolean>> {
  return attemptAsync((k) => new k.AsyncEntry(service, account, OPTIONS).deleteCredential());
}

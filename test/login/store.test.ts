/**
 * The sign-in store with a keychain that answers as a locked or absent one does (the keychain module mocked; the
 * real one is absent on this machine, as the CLI tests see): a clear message, never a crash, and the private
 * file as the fallback.
 */
import { statSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { tempDir } from "../cli/run-awl.js";

const keychain = vi.hoisted(() => ({
  get: { ok: true, value: null } as { ok: true; value: string | null } | { ok: false; reason: string },
  set: { ok: true, value: undefined } as { ok: true; value: void } | { ok: false; reason: string },
  stored: [] as string[],
}));
vi.mock("../../src/login/keychain.js", () => ({
  keychainGet: async () => keychain.get,
  keychainGetSync: () => keychain.get,
  keychainSet: async (_service: string, _account: string, secret: string) => {
    if (keychain.set.ok) keychain.stored.push(secret);
    return keychain.set;
  },
  keychainDelete: async () => ({ ok: true, value: false }),
}));

const { LoginStore } = await import("../../src/login/store.js");
const { LoginSession } = await import("../../src/login/session.js");

const LOCKED = "The user name or passphrase you entered is not correct.";
const record = { version: 1 as const, provider: "copilot" as const, refresh_token: "gho_refresh_0123456789", access_token: "tid=abc;exp=1", expires_at: Date.now() + 3600_000 };

afterEach(() => {
  keychain.get = { ok: true, value: null };
  keychain.set = { ok: true, value: undefined };
  keychain.stored = [];
});

describe("the sign-in store", () => {
  it("uses the keychain when it works, and leaves no file", async () => {
    const store = new LoginStore({ dataDir: tempDir() });
    expect(await store.save(record)).toEqual({ where: "keychain" });
    expect(keychain.stored).toEqual([JSON.stringify(record)]);
    keychain.get = { ok: true, value: keychain.stored[0]! };
    expect(await store.load("copilot")).toMatchObject({ ok: true, where: "keychain", record });
  });

  it("a locked keychain: saving falls back to the 0600 file and says why; reading says the keychain could not be read", async () => {
    const store = new LoginStore({ dataDir: tempDir() });
    keychain.set = { ok: false, reason: LOCKED };
    const saved = await store.save(record);
    expect(saved).toEqual({ where: "file", file: store.file("copilot"), keychainProblem: LOCKED });
    expect(statSync(store.file("copilot")).mode & 0o777).toBe(0o600);

    const other = new LoginStore({ dataDir: tempDir() });
    keychain.get = { ok: false, reason: LOCKED };
    expect(await other.load("copilot")).toEqual({ ok: false, problem: `the OS keychain could not be read (${LOCKED})` });
    const session = new LoginSession("copilot", { dataDir: tempDir() }, async () => ({ ok: false, message: "unused" }));
    const current = await session.current();
    expect(current.ok).toBe(false);
    if (!current.ok) expect(current.error).toMatchObject({ kind: "auth", code: "login_required", message: `the OS keychain could not be read (${LOCKED}); sign in with \`awl login copilot\`` });
  });

  it("an absent keychain (no D-Bus) holds nothing: not signed in, not an error", async () => {
    keychain.get = { ok: false, reason: "Platform failure: DBus error: Failed to connect to socket /run/user/0/bus" };
    expect(await new LoginStore({ dataDir: tempDir() }).load("chatgpt")).toEqual({ ok: true });
  });

  it("a record awl did not write (another provider's, missing token, wrong types) is refused", async () => {
    keychain.get = { ok: true, value: JSON.stringify({ ...record, provider: "chatgpt" }) };
    expect((await new LoginStore({ dataDir: tempDir() }).load("copilot")).ok).toBe(false);
    keychain.get = { ok: true, value: JSON.stringify({ ...record, refresh_token: "" }) };
    expect((await new LoginStore({ dataDir: tempDir() }).load("copilot")).ok).toBe(false);
    keychain.get = { ok: true, value: JSON.stringify({ ...record, expires_at: "soon" }) };
    expect((await new LoginStore({ dataDir: tempDir() }).load("copilot")).ok).toBe(false);
  });
});

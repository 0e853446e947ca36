/**
 * A sign-in while awl runs: refreshed only near expiry, once for calls made at once, and not at all when another
 * awl process has stored a fresh token meanwhile (ChatGPT replaces the refresh token on each refresh, so using the
 * old one would be refused).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { LoginSession, REFRESH_MARGIN_MS } from "../../src/login/session.js";
import type { LoginRecord } from "../../src/login/types.js";
import { tempDir } from "../cli/run-awl.js";

const HOUR = 3600_000;

function stored(dataDir: string, record: LoginRecord): void {
  mkdirSync(join(dataDir, "logins"), { recursive: true });
  writeFileSync(join(dataDir, "logins", `${record.provider}.json`), JSON.stringify(record));
}

it("refreshes near expiry only, once for calls made at once, and takes a fresh token another process stored", async () => {
  const dataDir = tempDir();
  let now = 1_000_000;
  const first: LoginRecord = { version: 1, provider: "chatgpt", refresh_token: "rt_one_0123456789", access_token: "at_one_0123456789", expires_at: now + HOUR };
  stored(dataDir, first);
  const refreshes: string[] = [];
  const session = new LoginSession(
    "chatgpt",
    { dataDir, fileOnly: true },
    async (record) => {
      refreshes.push(record.refresh_token);
      return { ok: true, value: { ...record, refresh_token: `rt_${refreshes.length}_0123456789`, access_token: `at_${refreshes.length}_0123456789`, expires_at: now + HOUR } };
    },
    () => now,
  );
  expect(await session.current()).toMatchObject({ ok: true, refreshed: false, record: { access_token: "at_one_0123456789" } });

  // Near expiry: two calls at once share one refresh, made with the stored refresh token.
  now += HOUR - REFRESH_MARGIN_MS + 1;
  const [a, b] = await Promise.all([session.current(), session.current()]);
  expect(refreshes).toEqual(["rt_one_0123456789"]);
  expect(a).toEqual(b);
  expect(a).toMatchObject({ ok: true, refreshed: true, record: { access_token: "at_1_0123456789" } });

  // Another process refreshed meanwhile and stored its (fresh) token: taken, no refresh with a spent token.
  now += HOUR - REFRESH_MARGIN_MS + 1;
  stored(dataDir, { ...first, refresh_token: "rt_other_0123456789", access_token: "at_other_0123456789", expires_at: now + HOUR });
  expect(await session.current()).toMatchObject({ ok: true, record: { access_token: "at_other_0123456789" } });
  expect(refreshes).toEqual(["rt_one_0123456789"]);
});

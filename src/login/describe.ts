/** A sign-in in words, for `awl login` and `awl config`: who, which plan, until when; never a token. */
import type { LoginRecord } from "./types.js";

/** `signed in as X (plan: P), token valid until T` without any token. */
export function describeLogin(record: LoginRecord): string {
  const who = record.account ? ` as ${record.account}` : "";
  const plan = record.plan ? ` (plan: ${record.plan})` : "";
  const until = record.expires_at !== undefined ? `, token valid until ${new Date(record.expires_at).toISOString()} (refreshed before it expires)` : "";
  return `signed in${who}${plan}${until}`;
}

/**
 * Credentials that become known while awl runs (a sign-in's token refreshed mid-session): announced here, and
 * every scrubber that subscribed (what awl prints, the session file) replaces them from then on, like the keys
 * known at start (src/util/secrets.ts).
 */

type Listener = (secrets: readonly string[]) => void;

const listeners = new Set<Listener>();

/** Tells every subscriber about these secrets. */
export function announceSecrets(secrets: readonly string[]): void {
  if (secrets.length === 0) return;
  for (const listener of listeners) listener(secrets);
}

/** Calls `listener` with each secret announced from now on; returns the unsubscribe function. */
export function onSecretsAnnounced(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

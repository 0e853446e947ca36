/**
 * Credentials that become known while awl runs (a sign-in's token refreshed mid-session): announced here, and
 * every scrubber that subscribed (what awl prints, the session file, a session's tools) replaces them from then on,
 * like the keys known at start (src/util/secrets.ts).
 *
 * A subscription holds its subscriber weakly: a session that ends (ACP's `session/close`) and drops its tools and
 * store frees them, though nothing unsubscribes (an editor may open and close hundreds of sessions in one process).
 */

interface Subscription {
  owner: WeakRef<Record<string, (secrets: readonly string[]) => void>>;
  method: string;
}

const subscriptions = new Set<Subscription>();

/** Tells every subscriber still alive about these secrets. */
export function announceSecrets(secrets: readonly string[]): void {
  if (secrets.length === 0) return;
  for (const { owner, method } of live()) owner.deref()?.[method]!(secrets);
}

/**
 * Calls `owner[method](secrets)` with each secret announced from now on, while `owner` is alive. A method name, not a
 * callback: a function made where the owner is in scope would share that scope, and with it hold the owner.
 */
export function onSecretsAnnounced<K extends string>(owner: Record<K, (secrets: readonly string[]) => void>, method: K): void {
  live();
  subscriptions.add({ owner: new WeakRef(owner), method });
}

/** The subscriptions whose owner is alive (the others are dropped). */
function live(): Subscription[] {
  const out: Subscription[] = [];
  for (const subscription of subscriptions) {
    if (subscription.owner.deref() === undefined) subscriptions.delete(subscription);
    else out.push(subscription);
  }
  return out;
}

/** Builds the provider for resolved settings as a value; only the chosen provider's code is loaded. */
import { createProvider as create } from "../providers/create.js";
import { ProviderConfigError, type ProviderError } from "../providers/errors.js";
import type { Provider, ProviderSettings } from "../providers/types.js";

export async function createProvider(settings: ProviderSettings): Promise<{ ok: true; provider: Provider } | { ok: false; error: ProviderError }> {
  try {
    // Notes a provider makes (an event type it ignored) are a debugging aid: shown with AWL_DEBUG=1 only.
    const onNotice = settings.onNotice ?? (process.env.AWL_DEBUG ? (text: string) => void process.stderr.write(`awl: note: ${text}\n`) : undefined);
    return { ok: true, provider: await create(onNotice ? { ...settings, onNotice } : settings) };
  } catch (e) {
    if (e instanceof ProviderConfigError) return { ok: false, error: e.error };
    throw e;
  }
}

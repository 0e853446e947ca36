/** Builds the provider for resolved settings; only the chosen provider's code is loaded. */
import { providerError, type ProviderError } from "../providers/errors.js";
import type { Provider, ProviderSettings } from "../providers/types.js";

export async function createProvider(settings: ProviderSettings): Promise<{ ok: true; provider: Provider } | { ok: false; error: ProviderError }> {
  if (settings.provider === "replay") {
    const { readReplayScript, ReplayProvider } = await import("../providers/replay/index.js");
    const read = readReplayScript(settings.replayFile ?? "");
    if (!read.ok) return read;
    return { ok: true, provider: new ReplayProvider(read.script, settings.model) };
  }
  return { ok: false, error: providerError("config", `the "${settings.provider}" provider is not part of this build yet`) };
}

/** The API keys a run of awl knows of, scrubbed from everything it writes to disk (session files, spill files). */
import { knownSecrets } from "../util/secrets.js";
import type { RuntimeOptions } from "./runtime.js";

/**
 * Every key awl knows of: the active one, the config file's, and every key variable of the environment the
 * settings came from and of the process (what tools see: the demo resolves its settings from an empty one).
 */
export function runSecrets(options: Pick<RuntimeOptions, "settings" | "sources">): string[] {
  const { env, file } = options.sources;
  return [options.settings.provider.apiKey ?? "", ...knownSecrets({ ...process.env, ...env }, file)];
}

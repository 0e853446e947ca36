/**
 * Every API key awl can know of, for the session scrubber (docs/sessions.md "What is never in the file").
 * Not only the active provider's: a tool printing the environment, or a prompt quoting another provider's
 * key, must not put that key in the file either.
 */
import type { ConfigFileValues } from "../config/config-file.js";

/** Environment variables that hold a key by awl's own conventions, whatever their name ends with. */
const KNOWN_KEY_VARIABLES = ["AWL_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

/** Any variable named like an API key (`GROQ_API_KEY`, `MY_API_KEY_2`). */
const KEY_NAME = /(^|_)API_KEY($|_)/i;

/**
 * The values of the key variables in `env` (awl's own, any `*_API_KEY`, and those the config file's
 * `providers.*.api_key_env` name) and the config file's `api_key`. Values shorter than the scrubber's
 * minimum are dropped by the scrubber itself.
 */
export function knownSecrets(env: NodeJS.ProcessEnv, file: ConfigFileValues = {}): string[] {
  const names = new Set(KNOWN_KEY_VARIABLES);
  for (const name of Object.keys(env)) if (KEY_NAME.test(name)) names.add(name);
  for (const entry of Object.values(file.providers ?? {})) if (entry.api_key_env) names.add(entry.api_key_env);
  const secrets: string[] = [];
  for (const name of names) {
    const value = env[name];
    if (value) secrets.push(value);
  }
  if (file.api_key) secrets.push(file.api_key);
  return secrets;
}

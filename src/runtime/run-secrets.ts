/** The credentials a run of awl knows of, scrubbed from everything it writes to disk (session files, spill files) and prints. */
import { configCredentials, knownSecrets } from "../util/secrets.js";
import { loginPlace } from "../config/login-settings.js";
import { storedLoginSecrets } from "../login/store.js";
import type { RunOptions } from "./run-options.js";

/**
 * Every key awl knows of: the active one (Bedrock's AWS secret key and session token too), the config file's, and every key variable of the environment the
 * settings came from and of the process (what tools see: the demo resolves its settings from an empty one); every
 * other credential of the config (headers, URL passwords, MCP servers' env and headers, `configCredentials`); the
 * tokens of the stored sign-ins (`awl login`; those refreshed later are announced, src/util/late-secrets.ts).
 */
export function runSecrets(options: Pick<RunOptions, "settings" | "sources">): string[] {
  // Asked by each part a run opens (tools, hooks, jobs, history, the printed-text scrubber): worked out once per
  // settings (each reads the environment twice and the sign-in store). A token refreshed later is announced instead.
  const known = computed.get(options.sources);
  if (known?.settings === options.settings) return [...known.secrets];
  const secrets = collect(options);
  computed.set(options.sources, { settings: options.settings, secrets });
  return [...secrets];
}

const computed = new WeakMap<RunOptions["sources"], { settings: RunOptions["settings"]; secrets: string[] }>();

function collect(options: Pick<RunOptions, "settings" | "sources">): string[] {
  const { env, file } = options.sources;
  const provider = options.settings.provider;
  const inUse = configCredentials({ base_url: provider.baseUrl, providers: { inUse: { headers: provider.headers } } });
  const aws = provider.aws?.credentials;
  return [provider.apiKey ?? "", aws?.secretAccessKey ?? "", aws?.sessionToken ?? "", ...knownSecrets({ ...process.env, ...env }, file), ...configCredentials(file as Record<string, unknown> | undefined, { ...process.env, ...env }), ...inUse, ...storedLoginSecrets(provider.login ?? loginPlace(env), provider.provider)];
}

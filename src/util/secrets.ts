/**
 * Keeping API keys out of what awl writes to disk (session files and their side files, spilled tool results):
 * which keys awl knows of, and a scrubber that replaces each of them with `[REDACTED]`. Not only the active
 * provider's key: a tool printing the environment, or a prompt quoting another provider's key, must not put
 * that key on disk either (docs/sessions.md "What is never in the file").
 */
import type { ConfigFileValues } from "../config/config-file.js";

/** What a known secret becomes on disk. */
export const REDACTED = "[REDACTED]";

/** Secrets shorter than this are not scrubbed: replacing a short common string would corrupt the text. */
export const MIN_SECRET_LENGTH = 8;

/** Environment variables that hold a key by awl's own conventions, whatever their name ends with. */
export const KNOWN_KEY_VARIABLES: readonly string[] = ["AWL_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

/** Any variable named like an API key (`GROQ_API_KEY`, `MY_API_KEY_2`). */
const KEY_NAME = /(^|_)API_KEY($|_)/i;

/** Whether an environment variable holds an API key by its name (awl's own, any `*_API_KEY`). */
export function isKeyVariable(name: string): boolean {
  return KNOWN_KEY_VARIABLES.includes(name) || KEY_NAME.test(name);
}

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
  if (file.search?.api_key) secrets.push(file.search.api_key);
  return secrets;
}

/** Header and variable names that hold a credential (`Authorization`, `api-key`, `X-Auth-Token`, `GITHUB_TOKEN`, a password). */
const CREDENTIAL_NAME = /auth|key|token|secret|passw|cookie|credential|session/i;

/**
 * The credentials a config holds besides `api_key` (docs/sessions.md "What is never in the file"): the values of
 * credential headers of `providers.*.headers` and `mcpServers.*.headers` (and the token after a scheme such as
 * `Bearer `), the credential variables of `mcpServers.*.env`, and the `user:password` of every base URL (the
 * files' and the `*_BASE_URL` variables of `env`) and MCP server URL.
 */
export function configCredentials(values: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}): string[] {
  const out: string[] = [];
  const headers = (record: unknown): void => {
    for (const [name, value] of Object.entries(asRecord(record))) {
      if (typeof value !== "string" || !CREDENTIAL_NAME.test(name)) continue;
      out.push(value);
      const token = /^\s*\S+\s+(\S{8,})\s*$/.exec(value)?.[1];
      if (token) out.push(token);
    }
  };
  const url = (text: unknown): void => {
    if (typeof text !== "string") return;
    const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/@\s]+)@/i.exec(text)?.[1];
    if (!userinfo) return;
    out.push(userinfo);
    const colon = userinfo.indexOf(":");
    if (colon >= 0) out.push(userinfo.slice(colon + 1), safeDecode(userinfo.slice(colon + 1)));
  };
  url(values.base_url);
  for (const [name, value] of Object.entries(env)) if (name.endsWith("_BASE_URL")) url(value);
  for (const entry of Object.values(asRecord(values.providers))) {
    url(asRecord(entry).base_url);
    headers(asRecord(entry).headers);
  }
  for (const server of Object.values(asRecord(values.mcpServers))) {
    const entry = asRecord(server);
    url(entry.url);
    headers(entry.headers);
    headers(entry.env);
  }
  return out.filter((secret) => secret.length >= MIN_SECRET_LENGTH);
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The variables a config names as holding awl's credentials besides the key variables (docs/permissions.md,
 * "Credentials"): `AWL_API_KEY`, `OPENAI_API_KEY`, `ANTHROPIC_API_KEY` and every `providers.*.api_key_env`.
 */
export function withheldVariables(file: ConfigFileValues = {}): string[] {
  const names = new Set(KNOWN_KEY_VARIABLES);
  for (const entry of Object.values(file.providers ?? {})) if (entry.api_key_env) names.add(entry.api_key_env);
  return [...names];
}

/**
 * The environment of every program awl starts (tools' programs and the Lua extensions, command hooks; docs/permissions.md,
 * "Credentials"): `env` without its credential variables — awl's own key variables, any named like an API key
 * (`*_API_KEY`), those `withheld` names, and any holding one of `secrets` under another name — but for those
 * `pass` names (the user's `permissions.pass_env`). A copy.
 */
export function childEnv(env: NodeJS.ProcessEnv, options: { withheld?: readonly string[]; secrets?: readonly string[]; pass?: readonly string[] } = {}): NodeJS.ProcessEnv {
  const withheld = new Set(options.withheld ?? []);
  const secrets = new Set((options.secrets ?? []).filter((s) => s.length > 0));
  const pass = new Set(options.pass ?? []);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    const credential = isKeyVariable(name) || withheld.has(name) || (value !== undefined && secrets.has(value));
    if (!credential || pass.has(name)) out[name] = value;
  }
  return out;
}

/**
 * A last line of defence: no format awl writes has a field for keys or headers, but a key can still leak into
 * text (a tool printing the environment). Every occurrence of a secret the caller knows is replaced by `[REDACTED]`.
 */
export class SecretScrubber {
  private readonly raw: string[] = [];
  private readonly escaped: string[] = [];

  constructor(secrets: readonly (string | undefined)[] = []) {
    this.add(secrets);
  }

  /** Scrubs these secrets too from now on (a key that became known later, e.g. after a `/model` switch). */
  add(secrets: readonly (string | undefined)[]): void {
    for (const secret of secrets) {
      if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH || this.raw.includes(secret)) continue;
      this.raw.push(secret);
      // In JSON text a secret appears in its escaped form (the same as raw for ordinary keys).
      const escaped = JSON.stringify(secret).slice(1, -1);
      if (!this.escaped.includes(escaped)) this.escaped.push(escaped);
    }
    // Longest first, so a key that contains another is replaced whole.
    this.raw.sort((a, b) => b.length - a.length);
    this.escaped.sort((a, b) => b.length - a.length);
  }

  /** The secrets it replaces in plain text, longest first (for a scrubber elsewhere: a Lua worker's StreamScrubber). */
  get known(): readonly string[] {
    return this.raw;
  }

  /** Scrubs JSON text (a line of a session file). */
  json(text: string): string {
    return scrubAll(text, this.escaped);
  }

  /** Scrubs plain text (a side file, a spilled result). */
  text(text: string): string {
    return scrubAll(text, this.raw);
  }
}

function scrubAll(text: string, secrets: readonly string[]): string {
  for (const secret of secrets) if (text.includes(secret)) text = text.replaceAll(secret, REDACTED);
  return text;
}

const REDACTED_BYTES = Buffer.from(REDACTED);

/**
 * Scrubs bytes written piece by piece (a command's output saved whole as it comes, src/extensions/lua): a key
 * split between two pieces is replaced too, because the bytes where a key could still begin wait for the next
 * piece or the end. At each place the longest key that matches is replaced.
 */
export class StreamScrubber {
  private readonly secrets: Buffer[];
  private readonly hold: number;
  private pending: Buffer = Buffer.alloc(0);

  constructor(secrets: readonly string[]) {
    this.secrets = [...new Set(secrets)].filter((secret) => secret.length >= MIN_SECRET_LENGTH).map((secret) => Buffer.from(secret));
    this.hold = Math.max(0, ...this.secrets.map((secret) => secret.length - 1));
  }

  /** What can be written now of what was held back and `piece`, scrubbed (`piece` itself when there is no key). */
  push(piece: Uint8Array): Uint8Array {
    if (this.secrets.length === 0) return piece;
    const bytes = Buffer.concat([this.pending, piece]);
    const { done, rest } = this.scrub(bytes, bytes.length - this.hold);
    this.pending = Buffer.from(rest);
    return done;
  }

  /** What is still held back, scrubbed: the end of the stream. */
  end(): Uint8Array {
    const { done } = this.scrub(this.pending, this.pending.length);
    this.pending = Buffer.alloc(0);
    return done;
  }

  /**
   * `bytes` up to `before` (or past it, to the end of a key that begins before it) with the keys that begin there
   * replaced, and the rest. A key that begins before `before` lies whole in `bytes`: none is longer than the hold.
   */
  private scrub(bytes: Buffer, before: number): { done: Buffer; rest: Buffer } {
    const parts: Uint8Array[] = [];
    let from = 0;
    for (;;) {
      let at = -1;
      let length = 0;
      for (const secret of this.secrets) {
        const found = bytes.indexOf(secret, from);
        if (found >= 0 && found < before && (at < 0 || found < at || (found === at && secret.length > length))) {
          at = found;
          length = secret.length;
        }
      }
      if (at < 0) break;
      parts.push(bytes.subarray(from, at), REDACTED_BYTES);
      from = at + length;
    }
    const end = Math.max(from, before);
    parts.push(bytes.subarray(from, end));
    return { done: Buffer.concat(parts), rest: bytes.subarray(end) };
  }
}

/**
 * Google's application-default credentials (ADC), as Google's libraries find them, for Vertex AI: the JSON file
 * `GOOGLE_APPLICATION_CREDENTIALS` names, else gcloud's ADC file (`gcloud auth application-default login`), else the
 * metadata server of the machine (Compute Engine, Cloud Run, GKE). A service-account key is exchanged for an access
 * token with a JWT signed RS256 (node:crypto) at the key's `token_uri`; an `authorized_user` file's refresh token at its
 * `token_uri` (default Google's); the metadata server gives the token itself (`GCE_METADATA_HOST` names another).
 * Hand-written instead of `google-auth-library` (docs/providers.md says why). The token is kept until a minute
 * before it expires, then fetched again.
 */
import { createSign } from "node:crypto";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { objectOf, str } from "../json-fields.js";
import { providerError, type ProviderError } from "../errors.js";

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token";
/** A token this close to its expiry is fetched again. */
const EXPIRY_MARGIN_MS = 60_000;
const METADATA_TIMEOUT_MS = 3_000;

/** What authenticates one request: the access token, and the project to bill when the credentials name one. */
export interface GoogleToken {
  accessToken: string;
  /** `x-goog-user-project` for user credentials with a `quota_project_id`. */
  quotaProject?: string;
}

export interface GoogleAdc {
  /** A valid access token (cached until a minute before it expires), or why there is none. */
  token(): Promise<GoogleToken | ProviderError>;
  /** The project the credentials belong to (a key's `project_id`, a user file's quota project, the machine's), if any. */
  project(): Promise<string | undefined>;
}

/** Where the credentials came from, and how to get a token from them. */
interface Source {
  describe: string;
  fetchToken(): Promise<{ accessToken: string; expiresInS: number }>;
  project?: string;
  quotaProject?: string;
}

/** Reads the environment (`GOOGLE_APPLICATION_CREDENTIALS`, `CLOUDSDK_CONFIG`, `GCE_METADATA_HOST`, `HOME`) when first asked. */
export function googleAdc(env: NodeJS.ProcessEnv = process.env): GoogleAdc {
  let source: Promise<Source | ProviderError> | undefined;
  let cached: { token: GoogleToken; expiresAt: number } | undefined;
  const find = (): Promise<Source | ProviderError> => (source ??= findSource(env));
  return {
    async token() {
      if (cached && cached.expiresAt - Date.now() > EXPIRY_MARGIN_MS) return cached.token;
      const found = await find();
      if ("kind" in found) return found;
      try {
        const { accessToken, expiresInS } = await found.fetchToken();
        const token: GoogleToken = { accessToken, ...(found.quotaProject ? { quotaProject: found.quotaProject } : {}) };
        cached = { token, expiresAt: Date.now() + expiresInS * 1000 };
        return token;
      } catch (error) {
        // The token endpoint's refusal is `auth`; not reaching it at all is `network`.
        const message = error instanceof Error ? (error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message) : String(error);
        return providerError(error instanceof TokenRefused ? "auth" : "network", `no Google access token from ${found.describe}: ${message}`);
      }
    },
    async project() {
      const found = await find();
      return "kind" in found ? undefined : found.project;
    },
  };
}

async function findSource(env: NodeJS.ProcessEnv): Promise<Source | ProviderError> {
  const named = env.GOOGLE_APPLICATION_CREDENTIALS;
  if (named) {
    const text = await readFile(named, "utf8").catch((error: NodeJS.ErrnoException) => providerError("config", `GOOGLE_APPLICATION_CREDENTIALS names ${named}, which cannot be read (${error.code ?? error.message})`));
    return typeof text === "string" ? fileSource(text, `${named} (GOOGLE_APPLICATION_CREDENTIALS)`) : text;
  }
  const gcloudDir = env.CLOUDSDK_CONFIG || (process.platform === "win32" && env.APPDATA ? join(env.APPDATA, "gcloud") : join(env.HOME || homedir(), ".config", "gcloud"));
  const adcFile = join(gcloudDir, "application_default_credentials.json");
  const text = await readFile(adcFile, "utf8").catch(() => undefined);
  if (text !== undefined) return fileSource(text, adcFile);
  const host = env.GCE_METADATA_HOST || "169.254.169.254";
  const metadata = await metadataSource(host);
  if (metadata) return metadata;
  return providerError(
    "config",
    `no Google application-default credentials for Vertex AI: looked at GOOGLE_APPLICATION_CREDENTIALS (not set), ${adcFile} (not there) and the metadata server ${host} (no answer); run gcloud auth application-default login, or set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file`,
  );
}

function fileSource(text: string, where: string): Source | ProviderError {
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = objectOf(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed) return providerError("config", `the Google credentials file ${where} is not a JSON object`);
  const type = str(parsed.type);
  if (type === "service_account") {
    const email = str(parsed.client_email);
    const key = str(parsed.private_key);
    if (!email || !key) return providerError("config", `the service-account key ${where} has no client_email or private_key`);
    const tokenUri = str(parsed.token_uri) ?? GOOGLE_TOKEN_URI;
    const keyId = str(parsed.private_key_id);
    const project = str(parsed.project_id);
    return {
      describe: `the service account ${email} of ${where}`,
      ...(project ? { project } : {}),
      fetchToken: () => postToken(tokenUri, { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: signedJwt(email, key, keyId, tokenUri) }),
    };
  }
  if (type === "authorized_user") {
    const [clientId, clientSecret, refreshToken] = [str(parsed.client_id), str(parsed.client_secret), str(parsed.refresh_token)];
    if (!clientId || !clientSecret || !refreshToken) return providerError("config", `the user credentials ${where} have no client_id, client_secret or refresh_token: run gcloud auth application-default login again`);
    const quota = str(parsed.quota_project_id);
    return {
      describe: `the user credentials of ${where}`,
      ...(quota ? { project: quota, quotaProject: quota } : {}),
      fetchToken: () => postToken(str(parsed.token_uri) ?? GOOGLE_TOKEN_URI, { grant_type: "refresh_token", client_id: clientId, client_secret: clientSecret, refresh_token: refreshToken }),
    };
  }
  return providerError(
    "config",
    `the Google credentials ${where} are of type ${JSON.stringify(type ?? null)}, which awl does not read (it reads service_account and authorized_user files and the metadata server): use a service-account key, or gcloud auth application-default login`,
  );
}

/** The JWT a service account presents (RFC 7523): RS256 over `{iss, scope, aud, iat, exp}`, an hour long. */
function signedJwt(email: string, privateKey: string, keyId: string | undefined, audience: string): string {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: "RS256", typ: "JWT", ...(keyId ? { kid: keyId } : {}) };
  const claims = { iss: email, scope: SCOPE, aud: audience, iat: now, exp: now + 3600 };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${unsigned}.${createSign("RSA-SHA256").update(unsigned).sign(privateKey).toString("base64url")}`;
}

function base64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}

/** The token endpoint answered, with no token. */
class TokenRefused extends Error {}

/** An OAuth token request; the server's own error (`invalid_grant: ...`) becomes the message. */
async function postToken(uri: string, form: Record<string, string>): Promise<{ accessToken: string; expiresInS: number }> {
  const response = await fetch(uri, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form).toString() });
  return readToken(response, uri);
}

async function readToken(response: Response, uri: string): Promise<{ accessToken: string; expiresInS: number }> {
  const text = await response.text();
  let body: Record<string, unknown> | undefined;
  try {
    body = objectOf(JSON.parse(text));
  } catch {
    body = undefined;
  }
  const accessToken = str(body?.access_token);
  if (!response.ok || !accessToken) {
    const reason = [str(body?.error), str(body?.error_description)].filter(Boolean).join(": ") || text.slice(0, 200);
    throw new TokenRefused(`${uri} answered HTTP ${response.status}${reason ? ` (${reason})` : ""}`);
  }
  const expiresIn = Number(body?.expires_in);
  return { accessToken, expiresInS: Number.isFinite(expiresIn) ? expiresIn : 3600 };
}

/** The metadata server's default service account, when the server answers (on Google Cloud). */
async function metadataSource(host: string): Promise<Source | undefined> {
  const base = `http://${host}/computeMetadata/v1`;
  const get = (path: string): Promise<Response> => fetch(`${base}/${path}`, { headers: { "metadata-flavor": "Google" }, signal: AbortSignal.timeout(METADATA_TIMEOUT_MS) });
  const project = await get("project/project-id")
    .then(async (r) => (r.ok && r.headers.get("metadata-flavor") === "Google" ? (await r.text()).trim() : undefined))
    .catch(() => undefined);
  if (project === undefined) return undefined;
  const uri = `${base}/instance/service-accounts/default/token`;
  return { describe: `the metadata server ${host}`, ...(project ? { project } : {}), fetchToken: async () => readToken(await get("instance/service-accounts/default/token"), uri) };
}

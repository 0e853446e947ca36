/**
 * The built `awl -p` on Vertex AI, offline: Claude (`google-vertex-anthropic`) and Gemini (`google-vertex`) through a
 * fake Vertex server (the replay server) with a Google access token from application-default credentials: a
 * service-account key made in the test (its RS256 JWT verified by the fake token endpoint), gcloud's user ADC file
 * (refresh token, quota project), the metadata server; no ADC anywhere and a 403 from Vertex give clear errors.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAwl, tempDir } from "../../cli/run-awl.js";
import { splitEvery, startReplayServer, type ReplayServer } from "../../support/replay-server.js";
import { serviceAccountKey, startMetadataServer, startTokenServer, type TokenServer } from "./support.js";

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "../../fixtures", name), "utf8");
const anthropicText = () => ({ body: splitEvery(fixture("anthropic/text.sse"), 7) });
const geminiText = () => ({ body: splitEvery(fixture("gemini/text.sse"), 7) });

let vertex: ReplayServer;
let tokens: TokenServer;
let keyJson: string;
beforeAll(async () => {
  vertex = await startReplayServer();
  const key = serviceAccountKey();
  tokens = await startTokenServer(key.publicKey);
  keyJson = JSON.stringify({ ...key.fields, token_uri: tokens.url });
});
afterAll(async () => {
  await vertex.close();
  await tokens.close();
});

/** A HOME holding the service-account key, named by GOOGLE_APPLICATION_CREDENTIALS. */
function serviceAccountEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = tempDir("awl-gcp-");
  writeFileSync(join(home, "key.json"), keyJson);
  return { HOME: home, GOOGLE_APPLICATION_CREDENTIALS: join(home, "key.json"), AWL_BASE_URL: vertex.url, GCE_METADATA_HOST: "127.0.0.1:9", ...extra };
}

describe("awl -p on Vertex AI", () => {
  it("Claude: a service-account key's JWT (verified with its public key) buys the token; the Anthropic body goes to :streamRawPredict with anthropic_version and no model", async () => {
    const before = tokens.grants.length;
    vertex.enqueue(anthropicText());
    const env = serviceAccountEnv({ AWL_PROVIDER: "google-vertex-anthropic", AWL_MODEL: "claude-sonnet-4-5@20250929", CLOUD_ML_REGION: "us-east5" });
    const run = await runAwl(["-p", "hi", "--no-std-tools", "--no-session"], { env });
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("Hello, wörld");
    const request = vertex.requests.at(-1)!;
    expect(request.url).toBe("/v1/projects/sa-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict");
    expect(request.headers.authorization).toBe(`Bearer ya29.test-${before + 1}`);
    expect(request.headers["x-api-key"]).toBeUndefined();
    expect(request.headers["anthropic-version"]).toBeUndefined();
    const body = request.json() as Record<string, unknown>;
    expect(body.anthropic_version).toBe("vertex-2023-10-16");
    expect(body.model).toBeUndefined();
    expect(body.stream).toBe(true);
    const grant = tokens.grants.at(-1)!;
    expect(grant.claims).toMatchObject({ iss: "awl-test@sa-project.iam.gserviceaccount.com", aud: tokens.url, scope: "https://www.googleapis.com/auth/cloud-platform" });
    expect(Number(grant.claims!.exp) - Number(grant.claims!.iat)).toBe(3600);
  });

  it("Gemini: gcloud's user ADC file (refresh token, quota project billed); the project from GOOGLE_CLOUD_PROJECT; :streamGenerateContent?alt=sse", async () => {
    const home = tempDir("awl-gcp-");
    mkdirSync(join(home, ".config", "gcloud"), { recursive: true });
    const user = { type: "authorized_user", client_id: "user-client", client_secret: "user-secret", refresh_token: "1//refresh", quota_project_id: "billing-project", token_uri: tokens.url };
    writeFileSync(join(home, ".config", "gcloud", "application_default_credentials.json"), JSON.stringify(user));
    vertex.enqueue(geminiText());
    const env = { HOME: home, AWL_PROVIDER: "google-vertex", AWL_MODEL: "gemini-2.5-flash", AWL_BASE_URL: vertex.url, GOOGLE_CLOUD_PROJECT: "my-project", GCE_METADATA_HOST: "127.0.0.1:9" };
    const run = await runAwl(["-p", "hi", "--no-std-tools", "--no-session"], { env });
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("Hello, wörld");
    const request = vertex.requests.at(-1)!;
    expect(request.url).toBe("/v1/projects/my-project/locations/global/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(request.headers.authorization).toMatch(/^Bearer ya29\.test-\d+$/);
    expect(request.headers["x-goog-user-project"]).toBe("billing-project");
    expect(request.headers["x-goog-api-key"]).toBeUndefined();
    expect(tokens.grants.at(-1)).toEqual({ grant_type: "refresh_token", refresh_token: "1//refresh" });
    const config = await runAwl(["config"], { env });
    expect(config.stdout).toContain("API key: not set: requests carry a token of Google's application-default credentials, project my-project (from GOOGLE_CLOUD_PROJECT), region global");
  });

  it("the metadata server (GCE_METADATA_HOST) gives the token and the project when no file is there", async () => {
    const metadata = await startMetadataServer();
    try {
      vertex.enqueue(geminiText());
      const env = { AWL_PROVIDER: "google-vertex", AWL_MODEL: "gemini-2.5-flash", AWL_BASE_URL: vertex.url, GCE_METADATA_HOST: metadata.host };
      const run = await runAwl(["-p", "hi", "--no-std-tools", "--no-session"], { env, configFile: JSON.stringify({ providers: { "google-vertex": { region: "europe-west4" } } }) });
      expect(run.stderr).toBe("");
      const request = vertex.requests.at(-1)!;
      expect(request.url).toBe("/v1/projects/gce-project/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
      expect(request.headers.authorization).toBe("Bearer ya29.metadata");
    } finally {
      await metadata.close();
    }
  });

  it("no ADC anywhere: the places looked at, exit code 2, nothing sent", async () => {
    const before = vertex.requests.length;
    const run = await runAwl(["-p", "hi", "--no-session"], { env: { AWL_PROVIDER: "google-vertex-anthropic", AWL_MODEL: "claude-sonnet-4-5@20250929", AWL_BASE_URL: vertex.url, GCE_METADATA_HOST: "127.0.0.1:9" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no Google application-default credentials for Vertex AI: looked at GOOGLE_APPLICATION_CREDENTIALS \(not set\), \S+\/\.config\/gcloud\/application_default_credentials\.json \(not there\) and the metadata server 127\.0\.0\.1:9 \(no answer\)/);
    expect(run.stderr).toContain("gcloud auth application-default login");
    expect(vertex.requests.length).toBe(before);
  });

  it("a key file GOOGLE_APPLICATION_CREDENTIALS names that is missing, and a revoked refresh token: each named", async () => {
    const missing = await runAwl(["-p", "hi", "--no-session"], { env: { AWL_PROVIDER: "google-vertex", AWL_MODEL: "gemini-2.5-flash", GOOGLE_CLOUD_PROJECT: "p", GOOGLE_APPLICATION_CREDENTIALS: "/nonexistent/key.json" } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("GOOGLE_APPLICATION_CREDENTIALS names /nonexistent/key.json, which cannot be read (ENOENT)");
    const home = tempDir("awl-gcp-");
    writeFileSync(join(home, "user.json"), JSON.stringify({ type: "authorized_user", client_id: "c", client_secret: "user-secret", refresh_token: "1//revoked", token_uri: tokens.url }));
    const revoked = await runAwl(["-p", "hi", "--no-session"], { env: { AWL_PROVIDER: "google-vertex", AWL_MODEL: "gemini-2.5-flash", AWL_BASE_URL: vertex.url, GOOGLE_CLOUD_PROJECT: "p", GOOGLE_APPLICATION_CREDENTIALS: join(home, "user.json") } });
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toContain(`no Google access token from the user credentials of ${join(home, "user.json")} (GOOGLE_APPLICATION_CREDENTIALS): ${tokens.url} answered HTTP 400 (invalid_grant: Token has been expired or revoked.)`);
  });

  it("a 403 from Vertex names the project, the region and the role the account lacks", async () => {
    vertex.enqueue({ status: 403, headers: { "content-type": "application/json" }, body: JSON.stringify({ error: { code: 403, message: "Permission 'aiplatform.endpoints.predict' denied on resource", status: "PERMISSION_DENIED" } }) });
    const run = await runAwl(["-p", "hi", "--no-std-tools", "--no-session"], { env: serviceAccountEnv({ AWL_PROVIDER: "google-vertex-anthropic", AWL_MODEL: "claude-sonnet-4-5@20250929" }) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Vertex AI (project sa-project, region global) refused the request (HTTP 403)");
    expect(run.stderr).toContain("Permission 'aiplatform.endpoints.predict' denied");
    expect(run.stderr).toContain("roles/aiplatform.user");
  });
});

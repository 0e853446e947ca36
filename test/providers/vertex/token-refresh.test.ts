/**
 * The Google access token is kept while it is valid and fetched again when it is about to expire (within a minute):
 * three Vertex requests of one provider, the first token short-lived, the second an hour long.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Conversation } from "../../../src/model/conversation.js";
import type { ProviderSettings } from "../../../src/providers/types.js";
import { googleAdc } from "../../../src/providers/vertex/google-adc.js";
import { createVertexGeminiProvider } from "../../../src/providers/vertex/provider.js";
import { tempDir } from "../../cli/run-awl.js";
import { recordingReceiver } from "../../support/recording-receiver.js";
import { startReplayServer, type ReplayServer } from "../../support/replay-server.js";
import { serviceAccountKey, startTokenServer, type TokenServer } from "./support.js";

let vertex: ReplayServer;
let tokens: TokenServer;
let keyFile: string;
beforeAll(async () => {
  vertex = await startReplayServer();
  const key = serviceAccountKey();
  tokens = await startTokenServer(key.publicKey);
  keyFile = join(tempDir("awl-gcp-"), "key.json");
  writeFileSync(keyFile, JSON.stringify({ ...key.fields, token_uri: tokens.url }));
});
afterAll(async () => {
  await vertex.close();
  await tokens.close();
});

describe("Vertex AI access tokens", () => {
  it("a token about to expire is fetched again; a valid one is reused", async () => {
    const settings: ProviderSettings = { provider: "google-vertex", model: "gemini-2.5-flash", baseUrl: vertex.url, maxRetries: 0, stallTimeoutMs: 5_000, vertex: { region: "us-central1", regionalEndpoint: false } };
    const provider = await createVertexGeminiProvider(settings, googleAdc({ GOOGLE_APPLICATION_CREDENTIALS: keyFile, GCE_METADATA_HOST: "127.0.0.1:9" }));
    const conversation = new Conversation([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    const answer = readFileSync(join(import.meta.dirname, "../../fixtures/gemini/text.sse"), "utf8");
    const seen: string[] = [];
    for (const lifetime of [30, 3600, 3600]) {
      tokens.expiresIn = lifetime;
      vertex.enqueue({ body: answer });
      const result = await provider.streamStep(conversation, recordingReceiver());
      expect(result.ok).toBe(true);
      seen.push(String(vertex.requests.at(-1)!.headers.authorization));
    }
    expect(seen).toEqual(["Bearer ya29.test-1", "Bearer ya29.test-2", "Bearer ya29.test-2"]);
    expect(tokens.grants).toHaveLength(2);
    expect(vertex.requests.at(-1)!.url).toBe("/v1/projects/sa-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
  });
});

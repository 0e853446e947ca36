/**
 * Session credentials from the AWS chain are renewed when they expire: a `credential_process` profile whose
 * credentials last one second; the next request after that is signed with new ones (checked with the SDK's signer),
 * without restarting awl's provider.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Conversation } from "../../../src/model/conversation.js";
import { createBedrockProvider } from "../../../src/providers/bedrock/provider.js";
import type { ProviderSettings } from "../../../src/providers/types.js";
import { recordingReceiver } from "../../support/recording-receiver.js";
import { startReplayServer, type LoggedRequest, type ReplayServer } from "../../support/replay-server.js";
import { tempDir } from "../../cli/run-awl.js";
import { credentialProcess, frames, sdkAuthorization } from "./support.js";

let server: ReplayServer;
const saved = { ...process.env };
beforeAll(async () => {
  server = await startReplayServer();
  const dir = tempDir("awl-aws-refresh-");
  mkdirSync(join(dir, ".aws"));
  writeFileSync(join(dir, ".aws", "credentials"), "");
  writeFileSync(join(dir, ".aws", "config"), `[profile short]\ncredential_process = ${credentialProcess(dir, 1000)}\n`);
  Object.assign(process.env, { AWS_SHARED_CREDENTIALS_FILE: join(dir, ".aws", "credentials"), AWS_CONFIG_FILE: join(dir, ".aws", "config"), AWS_EC2_METADATA_DISABLED: "true" });
});
afterAll(async () => {
  process.env = saved;
  await server.close();
});

const ANSWER = frames([
  ["messageStart", { role: "assistant" }],
  ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: "ok" } }],
  ["contentBlockStop", { contentBlockIndex: 0 }],
  ["messageStop", { stopReason: "end_turn" }],
  ["metadata", { usage: { inputTokens: 1, outputTokens: 1 } }],
]);

/** The process run `n` that signed `request`, after checking its signature with the SDK's signer. */
async function signedByRun(request: LoggedRequest): Promise<number> {
  const n = Number(/Credential=AKIDPROC(\d+)\//.exec(String(request.headers.authorization))?.[1]);
  const credentials = { accessKeyId: `AKIDPROC${n}`, secretAccessKey: `proc/secret${n}`, sessionToken: `proc-token-${n}` };
  expect(request.headers.authorization).toBe(await sdkAuthorization(request, server.url, credentials, "eu-north-1"));
  expect(request.headers["x-amz-security-token"]).toBe(`proc-token-${n}`);
  return n;
}

describe("Bedrock session credentials", () => {
  it("expired session credentials are fetched again before the next request", async () => {
    const settings: ProviderSettings = { provider: "bedrock", model: "anthropic.claude-haiku-4-5-20251001-v1:0", baseUrl: server.url, maxRetries: 0, stallTimeoutMs: 5_000 };
    const bedrock = createBedrockProvider(settings, { region: "eu-north-1", profile: { name: "short", source: "a test" } });
    const conversation = new Conversation([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    server.enqueue({ headers: { "content-type": "application/vnd.amazon.eventstream" }, body: ANSWER }, { headers: { "content-type": "application/vnd.amazon.eventstream" }, body: ANSWER });
    expect((await bedrock.streamStep(conversation, recordingReceiver())).ok).toBe(true);
    const first = await signedByRun(server.requests.at(-1)!);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the first credentials (and any renewed with them) expire
    expect((await bedrock.streamStep(conversation, recordingReceiver())).ok).toBe(true);
    const second = await signedByRun(server.requests.at(-1)!);
    expect(first).toBe(1);
    expect(second).toBeGreaterThan(first);
  });
});

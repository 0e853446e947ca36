/**
 * The built `awl -p` with AWL_PROVIDER=bedrock against the replay server: SigV4 with the standard AWS variables (the
 * secret and session token never written to the session or the output), a Bedrock API key as a bearer token, and a
 * clear error without credentials.
 */
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAwl, tempDir } from "../../cli/run-awl.js";
import { splitEvery, startReplayServer, type ReplayServer } from "../../support/replay-server.js";
import { frames } from "./support.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

const MODEL = "anthropic.claude-haiku-4-5-20251001-v1:0";
const SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYzzSECRETzz";
const TOKEN = "IQoJb3JpZ2luX2VjEXAMPLEzzTOKENzz";
const answer = () => ({
  headers: { "content-type": "application/vnd.amazon.eventstream" },
  body: splitEvery(
    frames([
      ["messageStart", { role: "assistant" }],
      ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: `Hello from Bedrock; I will not repeat ${SECRET}.` } }],
      ["contentBlockStop", { contentBlockIndex: 0 }],
      ["messageStop", { stopReason: "end_turn" }],
      ["metadata", { usage: { inputTokens: 12, outputTokens: 7 } }],
    ]),
    9,
  ),
});

describe("awl -p with the Bedrock provider", () => {
  it("signs with the AWS variables' keys for AWS_REGION; the secret and the session token are in no file awl writes nor in its output", async () => {
    const home = tempDir();
    const env = { HOME: home, AWL_PROVIDER: "bedrock", AWL_BASE_URL: server.url, AWL_MODEL: MODEL, AWS_REGION: "eu-central-1", AWS_ACCESS_KEY_ID: "AKIDE2E", AWS_SECRET_ACCESS_KEY: SECRET, AWS_SESSION_TOKEN: TOKEN };
    server.enqueue(answer());
    const run = await runAwl(["-p", "hi", "--output-format", "stream-json", "--no-std-tools"], { env, cwd: home });
    expect(run.code).toBe(0);
    const request = server.requests.at(-1)!;
    expect(request.url).toBe(`/model/${encodeURIComponent(MODEL)}/converse-stream`);
    expect(request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDE2E\/\d{8}\/eu-central-1\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/);
    expect(request.headers["x-amz-security-token"]).toBe(TOKEN);
    expect(run.stdout).toContain("Hello from Bedrock");
    expect(run.stdout + run.stderr).not.toContain(SECRET);
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
    const config = await runAwl(["config"], { env, cwd: home });
    expect(config.stdout).toContain("API key: not set: requests are signed with the AWS access keys of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, region eu-central-1");
    expect(config.stdout).not.toContain(SECRET);
    // The model said the secret: the session file holds the text with it scrubbed. grep exits 1: found nowhere.
    const found = spawnSync("grep", ["-rl", "-F", "-e", SECRET, "-e", TOKEN, home], { encoding: "utf8" });
    expect([found.status, found.stdout]).toEqual([1, ""]);
    expect(spawnSync("grep", ["-rl", "Hello from Bedrock", home], { encoding: "utf8" }).stdout).toMatch(/sessions/);
  });

  it("a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK) is sent as a bearer token, unsigned", async () => {
    server.enqueue(answer());
    const run = await runAwl(["-p", "hi", "--no-std-tools", "--no-session"], { env: { AWL_PROVIDER: "bedrock", AWL_BASE_URL: server.url, AWL_MODEL: MODEL, AWS_BEARER_TOKEN_BEDROCK: "bedrock-api-key-e2e" } });
    expect(run.code).toBe(0);
    expect(server.requests.at(-1)!.headers.authorization).toBe("Bearer bedrock-api-key-e2e");
  });

  it("without credentials: a clear error naming the variables and the places the AWS chain looked at, nothing sent", async () => {
    const before = server.requests.length;
    const run = await runAwl(["-p", "hi", "--no-session"], { env: { AWL_PROVIDER: "bedrock", AWL_MODEL: MODEL, AWS_REGION: "us-west-2", AWS_EC2_METADATA_DISABLED: "true" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("no AWS credentials for Bedrock");
    expect(run.stderr).toContain("AWS_BEARER_TOKEN_BEDROCK");
    expect(run.stderr).toContain("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
    expect(server.requests.length).toBe(before);
  });
});

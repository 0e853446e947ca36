/**
 * The cloud providers cost nothing until chosen: a run of the built awl with another provider loads neither the AWS
 * SDK's credential chain nor awl's Bedrock or Vertex AI code (every file the run loaded is reported as it exits:
 * test/cli/load-report.ts); a Bedrock run that signs with a profile loads the SDK, and one with the key variables
 * does not.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadReporter } from "../cli/load-report.js";
import { runAwl, tempDir } from "../cli/run-awl.js";
import { openaiAnswer } from "../cli/openai-answer.js";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { frames } from "./bedrock/support.js";
import { mkdirSync, writeFileSync } from "node:fs";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

const REPO = join(import.meta.dirname, "../..");

/** The files a run loaded (paths in the package), none an ES module, and whether any of awl's own holds `marker`. */
async function loadedBy(args: string[], env: Record<string, string>): Promise<{ files: string[]; holds(marker: string): boolean }> {
  const reporter = loadReporter();
  const run = await runAwl(args, { env: { ...env, ...reporter.env } });
  expect(run.stderr).toBe("");
  const { files, esModules } = reporter.read();
  expect(esModules).toBe(false);
  const own = files.filter((file) => file.startsWith("dist/")).map((file) => readFileSync(join(REPO, file), "utf8"));
  return { files, holds: (marker) => own.some((text) => text.includes(marker)) };
}

describe("cloud providers load only when chosen", () => {
  it("an OpenAI-compatible run loads no AWS SDK, no Bedrock and no Vertex AI code", async () => {
    server.enqueue(openaiAnswer("hello"));
    const run = await loadedBy(["-p", "hi", "--no-std-tools", "--no-session"], { AWL_BASE_URL: server.url, AWL_API_KEY: "k", AWL_MODEL: "m" });
    expect(run.files.some((file) => file.startsWith("dist/cli/"))).toBe(true);
    expect(run.files.filter((file) => /@aws-sdk|@smithy/.test(file))).toEqual([]);
    expect(run.holds("converse-stream")).toBe(false);
    expect(run.holds("application_default_credentials")).toBe(false);
  });

  it("Bedrock with the key variables signs without the AWS SDK; with a profile it loads the SDK's chain", async () => {
    const answer = () => ({ headers: { "content-type": "application/vnd.amazon.eventstream" }, body: frames([["messageStart", { role: "assistant" }], ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: "ok" } }], ["contentBlockStop", { contentBlockIndex: 0 }], ["messageStop", { stopReason: "end_turn" }], ["metadata", { usage: { inputTokens: 1, outputTokens: 1 } }]]) });
    const bedrock = { AWL_PROVIDER: "bedrock", AWL_BASE_URL: server.url, AWL_MODEL: "anthropic.claude-haiku-4-5-20251001-v1:0", AWS_REGION: "us-east-1" };
    server.enqueue(answer());
    const keys = await loadedBy(["-p", "hi", "--no-std-tools", "--no-session"], { ...bedrock, AWS_ACCESS_KEY_ID: "AKID", AWS_SECRET_ACCESS_KEY: "secret" });
    expect(keys.holds("converse-stream")).toBe(true);
    expect(keys.files.filter((file) => /@aws-sdk|@smithy/.test(file))).toEqual([]);
    const home = tempDir("awl-aws-");
    mkdirSync(join(home, ".aws"));
    writeFileSync(join(home, ".aws", "credentials"), "[work]\naws_access_key_id = AKIDWORK\naws_secret_access_key = work/secret\n");
    server.enqueue(answer());
    const profile = await loadedBy(["-p", "hi", "--no-std-tools", "--no-session"], { ...bedrock, HOME: home, AWS_PROFILE: "work", AWS_EC2_METADATA_DISABLED: "true" });
    expect(profile.files.some((file) => file.includes("@aws-sdk/credential-provider-node"))).toBe(true);
    expect(server.requests.at(-1)!.headers.authorization).toContain("Credential=AKIDWORK/");
  });
});

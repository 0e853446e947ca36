/**
 * The built `awl -p` with Bedrock credentials from the AWS SDK's standard chain, offline: a temporary HOME with
 * `~/.aws/credentials` and `~/.aws/config` (the default profile, a named one by AWS_PROFILE or by awl's config file,
 * a `credential_process` script), each request's signature recomputed by the fake Bedrock server with the SDK's own
 * signer; a missing profile and a failing process give a clear error naming the profile and the files.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAwl, tempDir } from "../../cli/run-awl.js";
import { splitEvery, startReplayServer, type ReplayServer } from "../../support/replay-server.js";
import { credentialProcess, frames, sdkAuthorization, startStsServer } from "./support.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

const MODEL = "anthropic.claude-haiku-4-5-20251001-v1:0";
const answer = (text = "Hello from Bedrock.") => ({
  headers: { "content-type": "application/vnd.amazon.eventstream" },
  body: splitEvery(
    frames([
      ["messageStart", { role: "assistant" }],
      ["contentBlockDelta", { contentBlockIndex: 0, delta: { text } }],
      ["contentBlockStop", { contentBlockIndex: 0 }],
      ["messageStop", { stopReason: "end_turn" }],
      ["metadata", { usage: { inputTokens: 12, outputTokens: 7 } }],
    ]),
    9,
  ),
});

/** A HOME with `.aws/credentials` and `.aws/config` holding these texts. */
function awsHome(credentials: string, config: string): string {
  const home = tempDir("awl-aws-");
  mkdirSync(join(home, ".aws"));
  writeFileSync(join(home, ".aws", "credentials"), credentials);
  writeFileSync(join(home, ".aws", "config"), config);
  return home;
}

const bedrockEnv = (home: string, extra: Record<string, string> = {}) => ({
  HOME: home,
  AWL_PROVIDER: "bedrock",
  AWL_BASE_URL: server.url,
  AWL_MODEL: MODEL,
  AWS_EC2_METADATA_DISABLED: "true",
  ...extra,
});

describe("Bedrock credentials from the AWS chain (~/.aws, credential_process)", () => {
  it("the default profile of ~/.aws/credentials signs, for the region of ~/.aws/config's default profile", async () => {
    const home = awsHome("[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = default/secret\n", "[default]\nregion = eu-west-3\n");
    server.enqueue(answer());
    const run = await runAwl(["-p", "hi", "--no-std-tools", "--no-session"], { env: bedrockEnv(home) });
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("Hello from Bedrock.");
    const request = server.requests.at(-1)!;
    expect(request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDDEFAULT\/\d{8}\/eu-west-3\/bedrock\/aws4_request, /);
    expect(request.headers.authorization).toBe(await sdkAuthorization(request, server.url, { accessKeyId: "AKIDDEFAULT", secretAccessKey: "default/secret" }, "eu-west-3"));
    expect(request.headers["x-amz-security-token"]).toBeUndefined();
  });

  it("AWS_PROFILE names a profile whose credential_process gives session credentials (token signed and sent); the profile wins over the key variables", async () => {
    const home = awsHome("[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = default/secret\n", "");
    writeFileSync(join(home, ".aws", "config"), `[profile work]\nregion = ap-south-1\ncredential_process = ${credentialProcess(home, 3600_000)}\n`);
    server.enqueue(answer());
    const env = bedrockEnv(home, { AWS_PROFILE: "work", AWS_ACCESS_KEY_ID: "AKIDENV", AWS_SECRET_ACCESS_KEY: "env/secret" });
    const run = await runAwl(["-p", "hi", "--no-std-tools", "--no-session"], { env });
    expect(run.stderr).toBe("");
    const request = server.requests.at(-1)!;
    expect(request.headers["x-amz-security-token"]).toBe("proc-token-1");
    expect(request.headers.authorization).toBe(await sdkAuthorization(request, server.url, { accessKeyId: "AKIDPROC1", secretAccessKey: "proc/secret1", sessionToken: "proc-token-1" }, "ap-south-1"));
    expect(run.stdout).not.toContain("proc/secret1");
    const config = await runAwl(["config"], { env });
    expect(config.stdout).toContain('API key: not set: requests are signed with the AWS profile "work" (from AWS_PROFILE), region of the profile, else us-east-1');
  });

  it("providers.bedrock.profile and region in awl's config file choose a named profile of ~/.aws/credentials", async () => {
    const home = awsHome("[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = default/secret\n[team]\naws_access_key_id = AKIDTEAM\naws_secret_access_key = team/secret\n", "[default]\nregion = eu-west-3\n");
    server.enqueue(answer());
    const configFile = JSON.stringify({ providers: { bedrock: { profile: "team", region: "us-west-2" } } });
    const run = await runAwl(["-p", "hi", "--no-std-tools", "--no-session"], { env: bedrockEnv(home), configFile });
    expect(run.stderr).toBe("");
    const request = server.requests.at(-1)!;
    expect(request.headers.authorization).toBe(await sdkAuthorization(request, server.url, { accessKeyId: "AKIDTEAM", secretAccessKey: "team/secret" }, "us-west-2"));
  });

  it("web identity (AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_ARN) assumes the role at STS (a local fake) and signs with its session credentials; the SDK's Node-version warning never reaches awl's stderr", async () => {
    const home = awsHome("", "");
    writeFileSync(join(home, "token"), "eyJ.web-identity");
    const sts = await startStsServer();
    try {
      server.enqueue(answer());
      const env = bedrockEnv(home, { AWS_REGION: "eu-central-1", AWS_WEB_IDENTITY_TOKEN_FILE: join(home, "token"), AWS_ROLE_ARN: "arn:aws:iam::123456789012:role/agent", AWS_ENDPOINT_URL_STS: sts.url });
      const run = await runAwl(["-p", "hi", "--no-std-tools", "--no-session"], { env });
      expect(run.stderr).toBe("");
      expect(sts.requests.at(-1)).toMatch(/Action=AssumeRoleWithWebIdentity&.*RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fagent&.*WebIdentityToken=eyJ.web-identity/);
      const request = server.requests.at(-1)!;
      expect(request.headers.authorization).toBe(await sdkAuthorization(request, server.url, { accessKeyId: "AKIDSTS", secretAccessKey: "sts/secret", sessionToken: "sts-token" }, "eu-central-1"));
      expect(request.headers["x-amz-security-token"]).toBe("sts-token");
    } finally {
      await sts.close();
    }
  });

  it("a profile in neither file: a clear error naming it, where it was chosen and both files; nothing sent", async () => {
    const home = awsHome("[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = default/secret\n", "");
    const before = server.requests.length;
    const run = await runAwl(["-p", "hi", "--no-std-tools", "--no-session"], { env: bedrockEnv(home, { AWS_PROFILE: "typo" }) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`the AWS profile "typo" (from AWS_PROFILE) is in neither ${join(home, ".aws", "credentials")} nor ${join(home, ".aws", "config")}`);
    expect(server.requests.length).toBe(before);
  });

  it("a credential_process that fails: the profile, the files and the SDK's reason", async () => {
    const home = awsHome("", `[profile broken]\ncredential_process = ${process.execPath} -e "process.exit(3)"\n`);
    const run = await runAwl(["-p", "hi", "--no-std-tools", "--no-session"], { env: bedrockEnv(home, { AWS_PROFILE: "broken" }) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`no AWS credentials from the profile "broken" (from AWS_PROFILE) of ${join(home, ".aws", "credentials")} and ${join(home, ".aws", "config")}: Command failed: `);
  });

  it("no credentials anywhere: the places looked at, nothing sent", async () => {
    const home = awsHome("", "");
    const before = server.requests.length;
    const run = await runAwl(["-p", "hi", "--no-std-tools", "--no-session"], { env: bedrockEnv(home) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("no AWS credentials for Bedrock: looked at AWS_BEARER_TOKEN_BEDROCK, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, the default profile of");
    expect(server.requests.length).toBe(before);
  });
});

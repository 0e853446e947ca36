/** awl's SigV4 signer against the AWS SDK's own (@smithy/signature-v4) for a fixed clock: the same headers, byte for byte. */
import { Hash } from "@smithy/hash-node";
import { SignatureV4 } from "@smithy/signature-v4";
import { describe, expect, it } from "vitest";
import { signRequest, type AwsCredentials } from "../../../src/providers/bedrock/sigv4.js";

const NOW = new Date("2026-12-05T21:03:04.567Z");

async function sdkHeaders(url: URL, headers: Record<string, string>, body: string, credentials: AwsCredentials, region: string): Promise<Record<string, string>> {
  const signer = new SignatureV4({ credentials, region, service: "bedrock", sha256: Hash.bind(null, "sha256"), uriEscapePath: true });
  const query = Object.fromEntries(url.searchParams.entries());
  const signed = await signer.sign(
    { method: "POST", protocol: url.protocol, hostname: url.hostname, path: url.pathname, query, headers: { ...headers, host: url.host }, body },
    { signingDate: NOW },
  );
  return Object.fromEntries(Object.entries(signed.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

function lower(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

describe("SigV4 for Bedrock's Converse stream", () => {
  const body = JSON.stringify({ messages: [{ role: "user", content: [{ text: "Grüße 👋 \"quoted\"" }] }], inferenceConfig: { maxTokens: 512 } });
  const headers = { "content-type": "application/json", accept: "application/vnd.amazon.eventstream", "user-agent": "awl/0.1.0" };

  it.each([
    ["long-term keys, a model id with a colon", "us-east-1", "anthropic.claude-3-5-sonnet-20241022-v2:0", { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" }],
    ["a session token, an inference profile", "eu-west-3", "eu.anthropic.claude-sonnet-4-5-20250929-v1:0", { accessKeyId: "ASIAEXAMPLE", secretAccessKey: "secret/with+chars", sessionToken: "FwoGZXIvYXdzEJr//////////token==" }],
    ["an ARN as the model id", "us-west-2", "arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.anthropic.claude-haiku-4-5-20251001-v1:0", { accessKeyId: "AKID2", secretAccessKey: "s2" }],
  ])("%s: the same headers as the SDK's signer", async (_what, region, model, credentials) => {
    const url = new URL(`https://bedrock-runtime.${region}.amazonaws.com/model/${encodeURIComponent(model)}/converse-stream`);
    const ours = lower(signRequest({ method: "POST", url, headers, body, region, service: "bedrock", credentials, now: NOW }));
    expect(ours).toEqual(await sdkHeaders(url, headers, body, credentials, region));
    expect(ours.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=\w+\/20261205\/[a-z0-9-]+\/bedrock\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/);
  });

  it("a different body or clock changes the signature", () => {
    const url = new URL("https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream");
    const credentials = { accessKeyId: "A", secretAccessKey: "S" };
    const sign = (b: string, now: Date) => signRequest({ method: "POST", url, headers, body: b, region: "us-east-1", service: "bedrock", credentials, now }).authorization;
    expect(sign(body, NOW)).not.toBe(sign(`${body} `, NOW));
    expect(sign(body, NOW)).not.toBe(sign(body, new Date(NOW.getTime() + 1000)));
  });
});

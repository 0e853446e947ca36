/**
 * Bedrock test helpers: AWS event-stream frames encoded by the AWS SDK's own codec (@smithy/eventstream-codec), the
 * SDK's signature of a logged request, a `credential_process` program.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { Hash } from "@smithy/hash-node";
import { SignatureV4 } from "@smithy/signature-v4";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import type { LoggedRequest } from "../../support/replay-server.js";

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One frame per entry: `[eventType, payload]` is an event; `["!exceptionType", payload]` an exception. */
export function frames(entries: ReadonlyArray<[string, unknown]>): Buffer {
  return Buffer.concat(
    entries.map(([type, payload]) => {
      const exception = type.startsWith("!");
      const headers = exception
        ? { ":message-type": { type: "string" as const, value: "exception" }, ":exception-type": { type: "string" as const, value: type.slice(1) }, ":content-type": { type: "string" as const, value: "application/json" } }
        : { ":message-type": { type: "string" as const, value: "event" }, ":event-type": { type: "string" as const, value: type }, ":content-type": { type: "string" as const, value: "application/json" } };
      return Buffer.from(codec.encode({ headers, body: fromUtf8(JSON.stringify(payload)) }));
    }),
  );
}

/** The authorization the SDK's signer computes for `request` (sent to `serverUrl`) with `credentials` and `region`, at its own x-amz-date. */
export async function sdkAuthorization(request: LoggedRequest, serverUrl: string, credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }, region: string): Promise<string> {
  const signer = new SignatureV4({ credentials, region, service: "bedrock", sha256: Hash.bind(null, "sha256"), uriEscapePath: true });
  const url = new URL(request.url, serverUrl);
  const headers = Object.fromEntries(["content-type", "accept", "host"].map((name) => [name, String(request.headers[name])]));
  const date = String(request.headers["x-amz-date"]).replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z");
  const signed = await signer.sign({ method: "POST", protocol: "http:", hostname: url.hostname, port: Number(url.port), path: url.pathname, headers, body: request.body }, { signingDate: new Date(date) });
  return String(signed.headers.authorization);
}

/**
 * A `credential_process` command (for `~/.aws/config`) printing new session credentials on each run: run N gives
 * `AKIDPROC{N}`, `proc/secret{N}`, `proc-token-{N}`, valid for `lifetimeMs`.
 */
export function credentialProcess(dir: string, lifetimeMs: number): string {
  const script = join(dir, "creds.mjs");
  writeFileSync(
    script,
    `import { readFileSync, writeFileSync } from "node:fs";
const counter = ${JSON.stringify(join(dir, "runs"))};
let n = 1; try { n = Number(readFileSync(counter, "utf8")) + 1; } catch {}
writeFileSync(counter, String(n));
console.log(JSON.stringify({ Version: 1, AccessKeyId: "AKIDPROC" + n, SecretAccessKey: "proc/secret" + n, SessionToken: "proc-token-" + n, Expiration: new Date(Date.now() + ${lifetimeMs}).toISOString() }));
`,
  );
  chmodSync(script, 0o755);
  return `${process.execPath} ${script}`;
}

/** A fake STS (`AWS_ENDPOINT_URL_STS`): answers AssumeRoleWithWebIdentity with `AKIDSTS` / `sts/secret` / `sts-token`. */
export async function startStsServer(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const xml =
    '<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithWebIdentityResult><Credentials>' +
    "<AccessKeyId>AKIDSTS</AccessKeyId><SecretAccessKey>sts/secret</SecretAccessKey><SessionToken>sts-token</SessionToken><Expiration>2030-01-01T00:00:00Z</Expiration>" +
    "</Credentials><AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/agent/awl</Arn><AssumedRoleId>AROA:awl</AssumedRoleId></AssumedRoleUser>" +
    "</AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>";
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      requests.push(body);
      response.writeHead(200, { "content-type": "text/xml" }).end(xml);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

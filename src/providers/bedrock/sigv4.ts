/**
 * AWS Signature Version 4 for one HTTPS request (Bedrock's Converse API; docs.aws.amazon.com "Create a signed AWS API
 * request"), with node:crypto only. Pure: the clock is a parameter, so a test compares the headers with the AWS SDK's
 * own signer (@smithy/signature-v4) for a fixed time.
 *
 * Signed: `host`, `x-amz-date`, `x-amz-content-sha256` (the payload's hash, as the SDK sends it for Bedrock), the
 * session token when there is one, and any other header given except those a proxy may change (`user-agent`...). The canonical URI encodes each path segment once more
 * (every AWS service but S3), which is what turns a model id's `:` into `%253A` in the signature.
 */
import { createHash, createHmac } from "node:crypto";

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SignInput {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string;
  region: string;
  service: string;
  credentials: AwsCredentials;
  now: Date;
}

/** Headers a proxy may change or add, never signed (the SDK's list). */
const UNSIGNED = new Set(["authorization", "cache-control", "connection", "expect", "from", "keep-alive", "max-forwards", "pragma", "referer", "te", "trailer", "transfer-encoding", "upgrade", "user-agent", "x-amzn-trace-id"]);

/** The headers to send: those given, plus `x-amz-date`, `x-amz-content-sha256`, the token, and `authorization`. */
export function signRequest(input: SignInput): Record<string, string> {
  const { url, region, service, credentials } = input;
  const amzDate = input.now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256Hex(input.body);
  const headers: Record<string, string> = { ...input.headers, host: url.host, "x-amz-date": amzDate, "x-amz-content-sha256": payloadHash };
  if (credentials.sessionToken) headers["x-amz-security-token"] = credentials.sessionToken;
  const lower = new Map(
    Object.entries(headers)
      .filter(([name]) => !UNSIGNED.has(name.toLowerCase()))
      .map(([name, value]) => [name.toLowerCase(), value.trim().replace(/\s+/g, " ")]),
  );
  const names = [...lower.keys()].sort();
  const signedHeaders = names.join(";");
  const canonical = [
    input.method.toUpperCase(),
    canonicalPath(url.pathname),
    canonicalQuery(url.searchParams),
    names.map((name) => `${name}:${lower.get(name)}\n`).join(""),
    signedHeaders,
    payloadHash,
  ].join("\n");
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonical)].join("\n");
  let key: Buffer = hmac(`AWS4${credentials.secretAccessKey}`, day);
  for (const part of [region, service, "aws4_request"]) key = hmac(key, part);
  const signature = createHmac("sha256", key).update(toSign).digest("hex");
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}

/** Each segment URI-encoded (RFC 3986 unreserved characters kept), after the one encoding the URL already holds. */
function canonicalPath(path: string): string {
  return path.split("/").map((segment) => uriEncode(segment)).join("/") || "/";
}

function canonicalQuery(params: URLSearchParams): string {
  return [...params.entries()]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)])
    .sort(([a, x], [b, y]) => (a! < b! ? -1 : a! > b! ? 1 : x! < y! ? -1 : x! > y! ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
}

function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

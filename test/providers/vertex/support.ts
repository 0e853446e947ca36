/**
 * Vertex AI test helpers: a service-account key made in the test, and a fake Google token endpoint that verifies the
 * key's RS256 JWT with its public key (or a user's refresh token) before it hands out numbered access tokens.
 */
import { createVerify, generateKeyPairSync } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A service-account key file's fields (without `token_uri`) and the public key to verify its JWTs. */
export function serviceAccountKey(project = "sa-project"): { fields: Record<string, string>; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs8", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
  return { fields: { type: "service_account", project_id: project, private_key_id: "key-1", private_key: privateKey, client_email: `awl-test@${project}.iam.gserviceaccount.com`, client_id: "1" }, publicKey };
}

export interface TokenServer {
  url: string;
  /** Every grant received, with the JWT's verified claims for a service account. */
  grants: Array<{ grant_type: string; claims?: Record<string, unknown>; refresh_token?: string }>;
  /** Lifetime of the next tokens, in seconds. */
  expiresIn: number;
  close(): Promise<void>;
}

/** The fake token endpoint: answers `ya29.test-N` for a JWT signed by `publicKey`'s key or for the refresh token `1//refresh`. */
export async function startTokenServer(publicKey?: string): Promise<TokenServer> {
  const state = { grants: [] as TokenServer["grants"], expiresIn: 3600 };
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const form = new URLSearchParams(body);
      const grant = form.get("grant_type") ?? "";
      const refuse = (description: string) => response.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_grant", error_description: description }));
      if (grant === "urn:ietf:params:oauth:grant-type:jwt-bearer") {
        const [header, claims, signature] = (form.get("assertion") ?? "").split(".");
        const verified = publicKey !== undefined && createVerify("RSA-SHA256").update(`${header}.${claims}`).verify(publicKey, Buffer.from(signature ?? "", "base64url"));
        if (!verified) return refuse("Invalid JWT Signature.");
        state.grants.push({ grant_type: grant, claims: JSON.parse(Buffer.from(claims!, "base64url").toString()) });
      } else if (grant === "refresh_token") {
        if (form.get("refresh_token") !== "1//refresh" || form.get("client_secret") !== "user-secret") return refuse("Token has been expired or revoked.");
        state.grants.push({ grant_type: grant, refresh_token: form.get("refresh_token")! });
      } else return refuse(`unsupported grant ${grant}`);
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ access_token: `ya29.test-${state.grants.length}`, expires_in: state.expiresIn, token_type: "Bearer" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  return {
    url,
    get grants() {
      return state.grants;
    },
    get expiresIn() {
      return state.expiresIn;
    },
    set expiresIn(value: number) {
      state.expiresIn = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A fake metadata server (`GCE_METADATA_HOST`): the project id and a token, only to requests with `Metadata-Flavor: Google`. */
export async function startMetadataServer(): Promise<{ host: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    if (request.headers["metadata-flavor"] !== "Google") return response.writeHead(403).end("Missing Metadata-Flavor header");
    const headers = { "metadata-flavor": "Google" };
    if (request.url === "/computeMetadata/v1/project/project-id") return response.writeHead(200, headers).end("gce-project");
    if (request.url === "/computeMetadata/v1/instance/service-accounts/default/token")
      return response.writeHead(200, { ...headers, "content-type": "application/json" }).end(JSON.stringify({ access_token: "ya29.metadata", expires_in: 3599, token_type: "Bearer" }));
    response.writeHead(404, headers).end("not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { host: `127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

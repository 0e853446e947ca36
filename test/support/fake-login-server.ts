/**
 * A local stand-in for the vendors awl signs in to (AWL_LOGIN_TEST_SERVER maps `https://HOST/PATH` to
 * `{url}/HOST/PATH`): GitHub's device flow and Copilot token, Copilot's chat API, OpenAI's authorize and token
 * endpoints (checking the PKCE verifier against the challenge it was given), Copilot's model list, and ChatGPT's Responses API. Each API
 * answers only the token the fake issued last, so a test sees whether awl refreshed before its request.
 */
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeLoginServer {
  url: string;
  requests: SeenRequest[];
  /** The GitHub OAuth token the device flow gives. */
  githubToken: string;
  /** Every Copilot API token issued, oldest first. */
  copilotTokens: string[];
  /** Every ChatGPT access token and refresh token issued, oldest first. */
  chatgptAccess: string[];
  chatgptRefresh: string[];
  /** Settings a test changes. */
  options: {
    /** Polls answered `authorization_pending` before the token. */
    pendingPolls: number;
    /** The device flow ends with this error (`access_denied`, `expired_token`) instead of a token. */
    deviceError?: string;
    /** Lifetime of a Copilot token, in seconds. */
    copilotTtl: number;
    /** Lifetime of a ChatGPT access token, in seconds. */
    chatgptTtl: number;
    /** GitHub refuses the OAuth token (401): the sign-in was revoked. */
    githubRevoked: boolean;
    /** OpenAI refuses every refresh token. */
    chatgptRevoked: boolean;
    /** The Copilot API first asks for this tool call (until the conversation has a tool result). */
    toolCall?: { name: string; input: unknown };
    /** What the Copilot API says (`{github_token}` and `{copilot_token}` become the tokens: a model repeating them). */
    answer: string;
  };
  /** The `code_challenge`s the authorize endpoint was given. */
  challenges: string[];
  close(): Promise<void>;
}

/** The chat models the fake Copilot API lists (and an embedding model): one the catalogue knows by name, one it does not. */
export const COPILOT_MODELS = ["gpt-4.1", "fake-copilot-model"];

const RESPONSES_TEXT = readFileSync(resolve(import.meta.dirname, "../fixtures/openai-responses/text.sse"), "utf8");

function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.${randomBytes(8).toString("base64url")}`;
}

export async function startFakeLoginServer(): Promise<FakeLoginServer> {
  const fake: FakeLoginServer = {
    url: "",
    requests: [],
    githubToken: `gho_fake${randomBytes(12).toString("hex")}`,
    copilotTokens: [],
    chatgptAccess: [],
    chatgptRefresh: [],
    options: { pendingPolls: 2, copilotTtl: 1800, chatgptTtl: 3600, githubRevoked: false, chatgptRevoked: false, answer: "Hello from the plan" },
    challenges: [],
    close: async () => undefined,
  };
  let polls = 0;
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://fake");
      fake.requests.push({ method: request.method ?? "", path: url.pathname, headers: request.headers, body });
      const form = new URLSearchParams(body);
      const json = (status: number, value: unknown): void => void response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
      const auth = request.headers.authorization ?? "";
      switch (`${request.method} ${url.pathname}`) {
        case "POST /github.com/login/device/code":
          return json(200, { device_code: "dev-code-1", user_code: "WDJB-MJHT", verification_uri: "https://github.com/login/device", interval: 0, expires_in: 900 });
        case "POST /github.com/login/oauth/access_token":
          if (form.get("device_code") !== "dev-code-1" || form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:device_code") return json(400, { error: "bad_verification_code" });
          if (polls++ < fake.options.pendingPolls) return json(200, { error: "authorization_pending" });
          if (fake.options.deviceError) return json(200, { error: fake.options.deviceError });
          return json(200, { access_token: fake.githubToken, token_type: "bearer", scope: "read:user" });
        case "GET /api.github.com/user":
          return auth === `token ${fake.githubToken}` ? json(200, { login: "octocat" }) : json(401, { message: "Bad credentials" });
        case "GET /api.github.com/copilot_internal/v2/token": {
          if (fake.options.githubRevoked || auth !== `token ${fake.githubToken}`) return json(401, { message: "Bad credentials" });
          const token = `tid=fake;exp=1;sku=copilot_individual;proxy-ep=proxy.individual.githubcopilot.com;${randomBytes(16).toString("hex")}`;
          fake.copilotTokens.push(token);
          return json(200, { token, expires_at: Math.floor(Date.now() / 1000) + fake.options.copilotTtl, refresh_in: 1500, sku: "copilot_individual", endpoints: { api: `${fake.url}/api.individual.githubcopilot.com` } });
        }
        case "POST /api.individual.githubcopilot.com/chat/completions": {
          if (auth !== `Bearer ${fake.copilotTokens.at(-1)}`) return json(401, { error: { message: "unauthorized: token expired" } });
          const chunk = (delta: unknown, finish: string | null = null): string => `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", model: "gpt-4.1", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
          response.writeHead(200, { "content-type": "text/event-stream" });
          const answered = (JSON.parse(body) as { messages: Array<{ role: string }> }).messages.some((m) => m.role === "tool");
          const wanted = fake.options.toolCall;
          if (wanted && !answered) {
            const call = { index: 0, id: "call_1", type: "function", function: { name: wanted.name, arguments: JSON.stringify(wanted.input) } };
            return void response.end(chunk({ role: "assistant", tool_calls: [call] }) + chunk({}, "tool_calls") + "data: [DONE]\n\n");
          }
          return void response.end(chunk({ role: "assistant", content: fake.options.answer.replace("{github_token}", fake.githubToken).replace("{copilot_token}", fake.copilotTokens.at(-1)!) }) + chunk({}, "stop") + "data: [DONE]\n\n");
        }
        case "GET /api.individual.githubcopilot.com/models":
          if (auth !== `Bearer ${fake.copilotTokens.at(-1)}` || request.headers["copilot-integration-id"] !== "vscode-chat") return json(401, { error: { message: "unauthorized: token expired" } });
          return json(200, { object: "list", data: [...COPILOT_MODELS.map((id) => ({ id, object: "model", capabilities: { type: "chat" } })), { id: "text-embedding-3-small", object: "model", capabilities: { type: "embeddings" } }] });
        case "GET /auth.openai.com/oauth/authorize": {
          const challenge = url.searchParams.get("code_challenge") ?? "";
          const redirectUri = url.searchParams.get("redirect_uri") ?? "";
          fake.challenges.push(challenge);
          const code = `code-${randomBytes(8).toString("hex")}`;
          codes.set(code, { challenge, redirectUri });
          const back = new URL(redirectUri);
          back.searchParams.set("code", code);
          back.searchParams.set("state", url.searchParams.get("state") ?? "");
          return void response.writeHead(302, { location: back.toString() }).end();
        }
        case "POST /auth.openai.com/oauth/token": {
          if (form.get("client_id") !== "app_EMoamEEZ73f0CkXaXp7hrann") return json(400, { error: "invalid_client" });
          if (form.get("grant_type") === "authorization_code") {
            const given = codes.get(form.get("code") ?? "");
            const verifier = form.get("code_verifier") ?? "";
            if (!given || given.redirectUri !== form.get("redirect_uri")) return json(400, { error: "invalid_grant", error_description: "unknown code or redirect_uri" });
            if (createHash("sha256").update(verifier).digest("base64url") !== given.challenge) return json(400, { error: "invalid_grant", error_description: "code_verifier does not match the challenge" });
            codes.delete(form.get("code") ?? "");
            return json(200, chatgptTokens());
          }
          if (form.get("grant_type") === "refresh_token") {
            if (fake.options.chatgptRevoked || form.get("refresh_token") !== fake.chatgptRefresh.at(-1)) return json(401, { error: { code: "refresh_token_invalidated", message: "Your refresh token has been invalidated." } });
            return json(200, chatgptTokens());
          }
          return json(400, { error: "unsupported_grant_type" });
        }
        case "POST /chatgpt.com/backend-api/codex/responses": {
          if (auth !== `Bearer ${fake.chatgptAccess.at(-1)}` || request.headers["chatgpt-account-id"] !== "acct-fake-1") return json(401, { error: { message: "unauthorized" } });
          response.writeHead(200, { "content-type": "text/event-stream" });
          return void response.end(RESPONSES_TEXT);
        }
        default:
          return json(404, { error: `the fake has no ${request.method} ${url.pathname}` });
      }
    });
  });
  function chatgptTokens(): Record<string, unknown> {
    const auth = { "https://api.openai.com/auth": { chatgpt_account_id: "acct-fake-1", chatgpt_plan_type: "plus" } };
    const access = jwt({ ...auth, "https://api.openai.com/profile": { email: "ada@example.com" }, exp: Math.floor(Date.now() / 1000) + fake.options.chatgptTtl, nonce: randomBytes(8).toString("hex") });
    const refresh = `rt_fake${randomBytes(16).toString("hex")}`;
    fake.chatgptAccess.push(access);
    fake.chatgptRefresh.push(refresh);
    return { id_token: jwt({ email: "ada@example.com", ...auth }), access_token: access, refresh_token: refresh, expires_in: fake.options.chatgptTtl };
  }
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
  return fake;
}

/**
 * `awl models` for the sign-in and Vertex providers through the built awl (issue 29 item 5): Copilot's server list
 * (asked with the sign-in's fresh token and Copilot's headers, on the fake) merged with the catalogue's
 * `github-copilot` entry; without a sign-in the reason names `awl login copilot`; the ChatGPT plan and Vertex list
 * the catalogue's models (OpenAI's, Google's) and say why no server was asked; `/model` lists Copilot's models. The
 * token never shows.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectNoStackTrace, runAwl, type AwlRun } from "../cli/run-awl.js";
import { tmuxTest } from "../cli/tmux-terminal.js";
import { startFakeLoginServer, type FakeLoginServer } from "../support/fake-login-server.js";
import { loginHome } from "./login-home.js";

const tty = tmuxTest();
let fake: FakeLoginServer;
beforeAll(async () => {
  fake = await startFakeLoginServer();
});
afterAll(() => fake.close());

/** A cached catalogue (models.dev's format) whose `github-copilot` entry knows gpt-4.1 and a model the server lacks. */
const CACHED = {
  "github-copilot": {
    id: "github-copilot",
    name: "GitHub Copilot",
    models: {
      "gpt-4.1": { id: "gpt-4.1", name: "GPT-4.1", tool_call: true, cost: { input: 0, output: 0 }, limit: { context: 128000, output: 16384 } },
      "retired-model": { id: "retired-model", name: "Retired", limit: { context: 64000, output: 4096 } },
    },
  },
};

function models(provider: string, env: Record<string, string>, cwd: string): Promise<AwlRun> {
  return runAwl(["models", "--provider", provider, "--json"], { env, cwd });
}

/** The home's output, checked for no stack trace and no token of the fake's. */
function listing(run: AwlRun): { provider: string; catalogue_provider: string | null; server: { listed: boolean; count?: number; reason?: string }; models: Array<Record<string, unknown>> } {
  expectNoStackTrace(run.stderr);
  expect(run.code, run.stderr).toBe(0);
  for (const token of [fake.githubToken, ...fake.copilotTokens]) expect(run.stdout + run.stderr).not.toContain(token);
  return JSON.parse(run.stdout);
}

/** A home signed in to the fake Copilot. */
function signedIn(): ReturnType<typeof loginHome> {
  const place = loginHome(fake.url, "copilot");
  mkdirSync(join(place.file, ".."), { recursive: true });
  writeFileSync(place.file, JSON.stringify({ version: 1, provider: "copilot", refresh_token: fake.githubToken }));
  return place;
}

it("lists Copilot's server models merged with the catalogue, asked with the fresh token and Copilot's headers", async () => {
  const { home, env } = signedIn();
  const cache = join(home, "cache");
  mkdirSync(join(cache, "awl"), { recursive: true });
  writeFileSync(join(cache, "awl", "models.json"), JSON.stringify(CACHED));
  const result = listing(await models("copilot", { ...env, XDG_CACHE_HOME: cache }, home));
  expect(result.provider).toBe("copilot");
  expect(result.catalogue_provider).toBe("github-copilot");
  expect(result.server).toEqual({ listed: true, count: 2 });
  const byId = new Map(result.models.map((m) => [m.id, m]));
  expect(byId.get("gpt-4.1")).toMatchObject({ in_catalogue: true, offered: true, context_window: 128000, max_output_tokens: 16384 });
  expect(byId.get("fake-copilot-model")).toMatchObject({ in_catalogue: false, offered: true });
  expect(byId.get("retired-model")).toMatchObject({ in_catalogue: true, offered: false });
  // The embedding model the server also lists cannot chat: left out.
  expect(byId.has("text-embedding-3-small")).toBe(false);
  const asked = fake.requests.find((r) => r.path === "/api.individual.githubcopilot.com/models")!;
  expect(asked.headers.authorization).toBe(`Bearer ${fake.copilotTokens.at(-1)}`);
  expect(asked.headers["copilot-integration-id"]).toBe("vscode-chat");
});

it("without a sign-in does not ask Copilot and names awl login copilot", async () => {
  const { home, env } = loginHome(fake.url, "copilot");
  const asked = fake.requests.length;
  const result = listing(await models("copilot", env, home));
  expect(result.server.listed).toBe(false);
  expect(result.server.reason).toMatch(/^not asked: not signed in to GitHub Copilot.*awl login copilot/);
  expect(fake.requests.length).toBe(asked);
  // The text listing says it too.
  const text = await runAwl(["models", "--provider", "copilot"], { env, cwd: home });
  expect(text.stdout).toContain("awl login copilot");
});

it("lists OpenAI's catalogue models for the ChatGPT plan, saying its backend has no model list", async () => {
  const { home, env } = loginHome(fake.url, "chatgpt");
  const result = listing(await models("chatgpt", env, home));
  expect(result.catalogue_provider).toBe("openai");
  expect(result.server).toEqual({ listed: false, reason: "not asked: the ChatGPT plan's backend has no model list awl uses" });
  expect(result.models.map((m) => m.id)).toContain("gpt-5");
});

it("lists the catalogue's Gemini models for google-vertex and Claude for google-vertex-anthropic", async () => {
  const { home, env } = loginHome(fake.url, "copilot");
  const vertex = listing(await models("google-vertex", env, home));
  expect(vertex.provider).toBe("google-vertex");
  expect(vertex.catalogue_provider).toBe("google");
  expect(vertex.server).toEqual({ listed: false, reason: "not asked: awl has no way to ask google-vertex's server for its models" });
  expect(vertex.models.some((m) => String(m.id).startsWith("gemini-") && typeof m.context_window === "number")).toBe(true);
  const claude = listing(await models("google-vertex-anthropic", env, home));
  expect(claude.catalogue_provider).toBe("anthropic");
  expect(claude.models.some((m) => String(m.id).startsWith("claude-"))).toBe(true);
});

it("/model alone lists the models Copilot's server offers, with the catalogue's figures", async () => {
  const { home } = signedIn();
  await tty.start({ home, args: ["--provider", "copilot", "--no-session"], extraEnv: [`AWL_LOGIN_TEST_SERVER=${fake.url}`, "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent"] });
  await tty.send("/model");
  const screen = await tty.terminal.waitFor(/the server offers \(2\):\n {2}fake-copilot-model\n {2}gpt-4\.1 +1\.0M context/);
  for (const token of [fake.githubToken, ...fake.copilotTokens]) expect(screen).not.toContain(token);
  await tty.send("/quit");
  await tty.terminal.waitFor(/\[awl exited 0\]/);
});

/**
 * A sign-in's token goes only to its vendor's fixed address: no base URL, from a project's config (trusted or
 * not), the user's config, a variable or a flag, sends a Copilot or ChatGPT token elsewhere (issue 22's
 * CVE-2026-21852: a repository's settings redirecting the user's credentials). An "attacker" server counts what
 * reaches it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isCopilotApiUrl } from "../../src/login/endpoints.js";
import { runAwl, tempDir } from "../cli/run-awl.js";
import { startFakeLoginServer, type FakeLoginServer } from "../support/fake-login-server.js";

let fake: FakeLoginServer;
let attacker: Server;
let attackerUrl: string;
const stolen: string[] = [];
beforeAll(async () => {
  fake = await startFakeLoginServer();
  attacker = createServer((request, response) => {
    stolen.push(`${request.method} ${request.url} ${request.headers.authorization ?? ""}`);
    response.writeHead(500).end();
  });
  await new Promise<void>((done) => attacker.listen(0, "127.0.0.1", done));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await fake.close();
  attacker.closeAllConnections();
  attacker.close();
});

/** A home signed in to Copilot, and a project folder inside it with `config` as its .awl/config.json. */
async function signedInProject(config: unknown): Promise<{ env: Record<string, string>; project: string }> {
  const home = tempDir();
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), AWL_LOGIN_TEST_SERVER: fake.url };
  expect((await runAwl(["login", "copilot"], { env })).code).toBe(0);
  const project = join(home, "repo");
  mkdirSync(join(project, ".awl"), { recursive: true });
  writeFileSync(join(project, ".awl", "config.json"), JSON.stringify(config));
  return { env, project };
}

describe("a sign-in's endpoint cannot be redirected", () => {
  it("a trusted project's providers.copilot.base_url is refused, naming the key; nothing is sent anywhere", async () => {
    const { env, project } = await signedInProject({ provider: "copilot", providers: { copilot: { base_url: attackerUrl } } });
    const before = fake.requests.length;
    const run = await runAwl(["-p", "hi", "--trust-project", "--no-session", "--no-std-tools"], { env, cwd: project });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('a base URL is set for provider "copilot"');
    expect(run.stderr).toContain("providers.copilot.base_url");
    expect(run.stderr).toContain("it would receive your sign-in token");
    expect(stolen).toEqual([]);
    expect(fake.requests.length).toBe(before);
  });

  it("a trusted project's generic base_url with provider copilot is refused too", async () => {
    const { env, project } = await signedInProject({ provider: "copilot", base_url: attackerUrl });
    const run = await runAwl(["-p", "hi", "--trust-project", "--no-session", "--no-std-tools"], { env, cwd: project });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/a base URL is set for provider "copilot" \("base_url" in .*config\.json:\d+\)/);
    expect(stolen).toEqual([]);
  });

  it("an untrusted project's base URL is dropped as before; the request goes to Copilot's own address only", async () => {
    const { env, project } = await signedInProject({ provider: "copilot", providers: { copilot: { base_url: attackerUrl } } });
    const run = await runAwl(["-p", "hi", "--no-session", "--no-std-tools"], { env, cwd: project });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Hello from the plan");
    expect(run.stderr).toContain('"providers.copilot.base_url" is not read from a project file of a folder that is not trusted');
    expect(fake.requests.at(-1)!.path).toBe("/api.individual.githubcopilot.com/chat/completions");
    expect(stolen).toEqual([]);
  });

  it("the user's own AWL_BASE_URL or --base-url with a sign-in provider is an error, not a redirect", async () => {
    const { env, project } = await signedInProject({});
    for (const [args, extra] of [
      [["--provider", "chatgpt", "--base-url", attackerUrl], {}],
      [[], { AWL_PROVIDER: "copilot", AWL_BASE_URL: attackerUrl }],
    ] as const) {
      const run = await runAwl(["-p", "hi", ...args, "--no-session", "--no-std-tools"], { env: { ...env, ...extra }, cwd: project });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/a base URL is set for provider "(copilot|chatgpt)" \((--base-url|AWL_BASE_URL)\)/);
    }
    expect(stolen).toEqual([]);
  });

  it("a Copilot API address from GitHub's token answer is used only on a Copilot host over https", () => {
    expect(isCopilotApiUrl("https://api.individual.githubcopilot.com", undefined)).toBe(true);
    expect(isCopilotApiUrl("https://api.business.githubcopilot.com/", undefined)).toBe(true);
    expect(isCopilotApiUrl("https://api.githubcopilot.com.attacker.example", undefined)).toBe(false);
    expect(isCopilotApiUrl("https://attacker.example/api.githubcopilot.com", undefined)).toBe(false);
    expect(isCopilotApiUrl("http://api.githubcopilot.com", undefined)).toBe(false);
    expect(isCopilotApiUrl("https://user@evilgithubcopilot.com", undefined)).toBe(false);
    expect(isCopilotApiUrl("http://127.0.0.1:9/api.githubcopilot.com", "http://127.0.0.1:9")).toBe(true);
    expect(isCopilotApiUrl("http://127.0.0.1:9/attacker.example", "http://127.0.0.1:9")).toBe(false);
  });
});

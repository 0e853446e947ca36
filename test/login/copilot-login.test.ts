/**
 * `awl login copilot` through the built awl against a local fake of GitHub and Copilot (AWL_LOGIN_TEST_SERVER):
 * the device flow completes, the sign-in is kept in the private file (no keychain here) with mode 0600, the token is
 * refreshed before a request once it is near its expiry, a revoked sign-in is a clear error naming `awl login`, the
 * tokens never reach a session file or stream-json, and `awl logout` removes the sign-in.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoStackTrace, runAwl } from "../cli/run-awl.js";
import { ask, expectSignInAgain, loginHome } from "./login-home.js";
import { startFakeLoginServer, type FakeLoginServer } from "../support/fake-login-server.js";

let fake: FakeLoginServer;
beforeAll(async () => {
  fake = await startFakeLoginServer();
});
afterAll(() => fake.close());

const place = (): ReturnType<typeof loginHome> => loginHome(fake.url, "copilot");

describe("awl login copilot", () => {
  it("prints the code and the address, completes the device flow and keeps the sign-in in a 0600 file, saying so", async () => {
    const { env, file } = place();
    fake.options.pendingPolls = 2;
    const run = await runAwl(["login", "copilot"], { env });
    expect(run.stderr + run.stdout).not.toContain(fake.githubToken);
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("open https://github.com/login/device and enter the code WDJB-MJHT");
    expect(run.stdout).toContain("signed in to GitHub Copilot as octocat (plan: copilot_individual)");
    expect(run.stderr).toContain(`the sign-in is kept in ${file} instead, readable only by you (mode 0600)`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, "..")).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    expect(stored).toMatchObject({ version: 1, provider: "copilot", account: "octocat", refresh_token: fake.githubToken, access_token: fake.copilotTokens.at(-1) });
    // The device code was polled until GitHub gave the token.
    expect(fake.requests.filter((r) => r.path === "/github.com/login/oauth/access_token").length).toBeGreaterThanOrEqual(3);

    const listed = await runAwl(["login"], { env });
    expect(listed.stdout).toMatch(/copilot\s+GitHub Copilot: signed in as octocat \(plan: copilot_individual\), token valid until .*; kept in .*copilot\.json/);
    expect(listed.stdout).toContain("chatgpt   ChatGPT: not signed in");
    expect(listed.stdout).toContain("anthropic: Anthropic allows signing in with a Claude subscription");

    const config = await runAwl(["config", "--provider", "copilot"], { env });
    expect(config.stdout).toContain("sign-in: GitHub Copilot, signed in as octocat (plan: copilot_individual), token valid until");
    expect(config.stdout).toContain(`kept in ${file} (mode 0600)`);
    expect(config.stdout).toContain("model: gpt-4.1 (from copilot's default)");
    for (const token of [fake.githubToken, ...fake.copilotTokens]) expect(config.stdout + config.stderr).not.toContain(token);
  });

  it("refreshes a token near its expiry before the request; no token reaches stream-json or the session file", async () => {
    const { home, env } = place();
    fake.options.copilotTtl = 60; // inside the 5-minute margin: the stored token must be replaced before use
    expect((await runAwl(["login", "copilot"], { env })).code).toBe(0);
    fake.options.copilotTtl = 1800;
    const issued = fake.copilotTokens.length;
    fake.options.answer = "Hello from the plan; I will not repeat {github_token} nor {copilot_token}.";
    const before = fake.requests.length;
    const run = await runAwl(["-p", "hi", "--provider", "copilot", "--output-format", "stream-json", "--no-std-tools"], { env, cwd: home });
    fake.options.answer = "Hello from the plan";
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Hello from the plan; I will not repeat [REDACTED] nor [REDACTED].");
    const seen = fake.requests.slice(before).map((r) => r.path);
    expect(seen).toEqual(["/api.github.com/copilot_internal/v2/token", "/api.individual.githubcopilot.com/chat/completions"]);
    expect(fake.copilotTokens.length).toBe(issued + 1);
    const chat = fake.requests.at(-1)!;
    expect(chat.headers.authorization).toBe(`Bearer ${fake.copilotTokens.at(-1)}`);
    expect(chat.headers["copilot-integration-id"]).toBe("vscode-chat");
    expect(JSON.parse(chat.body)).toMatchObject({ model: "gpt-4.1", stream: true });
    for (const token of [fake.githubToken, ...fake.copilotTokens]) expect(run.stdout + run.stderr).not.toContain(token);
    const sessions = join(home, ".local", "share", "awl", "sessions");
    expect(spawnSync("grep", ["-rl", "Hello from the plan", sessions], { encoding: "utf8" }).stdout).not.toBe("");
    const found = spawnSync("grep", ["-rlF", ...[fake.githubToken, ...fake.copilotTokens].flatMap((t) => ["-e", t]), sessions], { encoding: "utf8" });
    expect([found.status, found.stdout]).toEqual([1, ""]);
  });

  it("a token refreshed during the run is scrubbed from a tool's spilled output, the session and stream-json", async () => {
    const { env, home, file } = place();
    fake.options.copilotTtl = 60;
    expect((await runAwl(["login", "copilot"], { env })).code).toBe(0);
    fake.options.copilotTtl = 1800;
    // The model runs a command that prints the sign-in file (rewritten with the refreshed token just before) and
    // enough besides for the output to be spilled to a file.
    fake.options.toolCall = { name: "bash", input: { command: `cat ${file}; yes x | head -c 60000` } };
    const run = await runAwl(["-p", "show it", "--provider", "copilot", "--output-format", "stream-json", "--dangerously-skip-permissions"], { env, cwd: home });
    fake.options.toolCall = undefined;
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(0);
    const fresh = fake.copilotTokens.at(-1)!;
    expect(readFileSync(file, "utf8")).toContain(fresh);
    expect(run.stdout).not.toContain(fresh);
    // Nowhere on disk but the sign-in file itself: not the session, not the spill file.
    const found = spawnSync("grep", ["-rlF", "--exclude=copilot.json", "-e", fresh, "-e", fake.githubToken, home], { encoding: "utf8" });
    expect([found.status, found.stdout]).toEqual([1, ""]);
    const spilled = spawnSync("grep", ["-rl", "--exclude=copilot.json", "REDACTED", home], { encoding: "utf8" }).stdout;
    expect(spilled).toMatch(/sessions/);
    expect(spilled).toMatch(/spill\/.*bash-.*\.txt/);
  });

  it("a revoked sign-in is a clear error naming awl login, and nothing is asked of the chat API", async () => {
    const { env, home } = place();
    fake.options.copilotTtl = 60;
    expect((await runAwl(["login", "copilot"], { env })).code).toBe(0);
    fake.options.copilotTtl = 1800;
    fake.options.githubRevoked = true;
    const before = fake.requests.length;
    const run = await ask("copilot", env, home);
    fake.options.githubRevoked = false;
    expectSignInAgain(run, "copilot", "the GitHub Copilot sign-in no longer works: GitHub refused the stored sign-in (expired or revoked)");
    expect(fake.requests.slice(before).map((r) => r.path)).toEqual(["/api.github.com/copilot_internal/v2/token"]);
  });

  it("a token the API refuses before its expiry (revoked early) is fetched anew once and the request made again", async () => {
    const { env, home } = place();
    expect((await runAwl(["login", "copilot"], { env })).code).toBe(0);
    // GitHub issues a newer token elsewhere: the fake's API now refuses the one awl stored (still 30 minutes valid).
    await fetch(`${fake.url}/api.github.com/copilot_internal/v2/token`, { headers: { authorization: `token ${fake.githubToken}` } });
    const before = fake.requests.length;
    const run = await ask("copilot", env, home);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Hello from the plan");
    expect(fake.requests.slice(before).map((r) => r.path)).toEqual([
      "/api.individual.githubcopilot.com/chat/completions",
      "/api.github.com/copilot_internal/v2/token",
      "/api.individual.githubcopilot.com/chat/completions",
    ]);
  });

  it("a damaged sign-in file is a clear error naming the file and awl login", async () => {
    const { env, home, file } = place();
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, "{not json");
    const run = await ask("copilot", env, home);
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${file} is not a copilot sign-in awl wrote (damaged or edited); sign in with \`awl login copilot\``);
  });

  it("without a sign-in: a clear error naming awl login, nothing sent", async () => {
    const { env, home } = place();
    const before = fake.requests.length;
    const run = await ask("copilot", env, home);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("not signed in to GitHub Copilot; sign in with `awl login copilot`");
    expect(fake.requests.length).toBe(before);
  });

  it("awl logout removes the stored sign-in; then a run says to sign in", async () => {
    const { env, file, home } = place();
    expect((await runAwl(["login", "copilot"], { env })).code).toBe(0);
    expect(existsSync(file)).toBe(true);
    const out = await runAwl(["logout", "copilot"], { env });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`signed out of GitHub Copilot (removed from ${file})`);
    expect(existsSync(file)).toBe(false);
    expect((await runAwl(["logout"], { env })).stdout).toContain("not signed in to GitHub Copilot");
    const run = await ask("copilot", env, home);
    expect(run.stderr).toContain("not signed in to GitHub Copilot");
  });

  it("a code refused on GitHub or left to expire ends the sign-in with a clear message; nothing is stored", async () => {
    const { env, file } = place();
    for (const [error, said] of [
      ["access_denied", "the sign-in was refused on GitHub"],
      ["expired_token", "the code WDJB-MJHT expired before it was entered"],
    ] as const) {
      fake.options.deviceError = error;
      const run = await runAwl(["login", "copilot"], { env });
      fake.options.deviceError = undefined;
      expectNoStackTrace(run.stderr);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`the GitHub Copilot sign-in failed: ${said}`);
      expect(existsSync(file)).toBe(false);
    }
  });

  it("the keychain library is pinned and installs without install scripts", () => {
    const root = join(import.meta.dirname, "..", "..");
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(pkg.dependencies["@napi-rs/keyring"]).toMatch(/^\d+\.\d+\.\d+$/);
    const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const keyring = Object.entries(lock.packages).filter(([path]) => path.startsWith("node_modules/@napi-rs/keyring"));
    expect(keyring.length).toBeGreaterThan(1);
    for (const [path, entry] of keyring) expect([path, entry.hasInstallScript]).toEqual([path, undefined]);
  });

  it("other providers are API-key only, with the reason; an unknown one is named", async () => {
    const anthropic = await runAwl(["login", "anthropic"]);
    expect(anthropic.code).toBe(2);
    expect(anthropic.stderr).toContain('"anthropic" is used with an API key, not a sign-in: Anthropic allows signing in with a Claude subscription (Pro, Max) only in its own apps');
    const gemini = await runAwl(["login", "gemini"]);
    expect(gemini.stderr).toContain("Gemini's API takes an API key from Google AI Studio");
    const unknown = await runAwl(["login", "nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown provider "nope"');
  });
});

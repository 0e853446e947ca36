/**
 * `awl login chatgpt` through the built awl against a local fake of OpenAI's sign-in (AWL_LOGIN_TEST_SERVER): the
 * PKCE flow with a localhost callback completes (the fake checks the code_verifier against the challenge), a
 * forged callback with another state is refused, the access token is refreshed before a request once it is near
 * expiry and then used with the account id header on the Responses API, a revoked refresh token is a clear error,
 * and no token reaches the session file or stream-json.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AWL, expectNoStackTrace, runAwl } from "../cli/run-awl.js";
import { ask, expectSignInAgain, loginHome } from "./login-home.js";
import { startFakeLoginServer, type FakeLoginServer } from "../support/fake-login-server.js";

let fake: FakeLoginServer;
beforeAll(async () => {
  fake = await startFakeLoginServer();
});
afterAll(() => fake.close());

const place = (): ReturnType<typeof loginHome> => loginHome(fake.url, "chatgpt");

/**
 * Runs `awl login chatgpt --headless` and plays the browser: opens the printed address on the fake (which redirects
 * to awl's callback with a code), first after a forged callback with the wrong state when `forge` is set.
 */
async function login(env: Record<string, string>, forge = false): Promise<{ code: number | null; stdout: string; stderr: string; forged?: number }> {
  const child = spawn(process.execPath, [AWL, "login", "chatgpt", "--headless"], { env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let forged: number | undefined;
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const browsed = new Promise<void>((resolve) => {
    child.stdout.setEncoding("utf8").on("data", async (d: string) => {
      const before = stdout;
      stdout += d;
      const address = /\n {2}(http\S+)\n/.exec(stdout)?.[1];
      if (!address || /\n {2}(http\S+)\n/.test(before)) return;
      const redirect = new URL(address).searchParams.get("redirect_uri")!;
      if (forge) forged = (await fetch(`${redirect}?code=forged&state=not-the-state`)).status;
      // The fake's authorize page redirects the browser to awl's callback with the code and the state.
      await fetch(address);
      resolve();
    });
  });
  await browsed;
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stdout, stderr, ...(forged !== undefined && { forged }) };
}

describe("awl login chatgpt", () => {
  it("completes the PKCE sign-in through the localhost callback; a forged callback is refused; the file is 0600", async () => {
    const { env, file } = place();
    const run = await login(env, true);
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(0);
    expect(run.forged).toBe(400);
    expect(run.stdout).toContain("To sign in to ChatGPT, open this address:");
    const address = new URL(/\n {2}(http\S+)\n/.exec(run.stdout)![1]!);
    expect(address.pathname).toBe("/auth.openai.com/oauth/authorize");
    expect(Object.fromEntries(address.searchParams)).toMatchObject({ response_type: "code", client_id: "app_EMoamEEZ73f0CkXaXp7hrann", code_challenge_method: "S256", scope: "openid profile email offline_access" });
    expect(address.searchParams.get("redirect_uri")).toMatch(/^http:\/\/localhost:\d+\/auth\/callback$/);
    expect(run.stdout).toContain("signed in to ChatGPT as ada@example.com (plan: plus)");
    expect(run.stderr).toContain(`the sign-in is kept in ${file} instead, readable only by you (mode 0600)`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The token request carried the verifier whose S256 is the challenge the authorize page was given.
    const exchange = fake.requests.filter((r) => r.path === "/auth.openai.com/oauth/token").at(-1)!;
    const verifier = new URLSearchParams(exchange.body).get("code_verifier")!;
    expect(createHash("sha256").update(verifier).digest("base64url")).toBe(fake.challenges.at(-1));
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ provider: "chatgpt", account: "ada@example.com", account_id: "acct-fake-1", plan: "plus", refresh_token: fake.chatgptRefresh.at(-1) });
    for (const token of [...fake.chatgptAccess, ...fake.chatgptRefresh]) expect(run.stdout + run.stderr).not.toContain(token);
  });

  it("refreshes an access token near expiry before the request, then asks the Responses API with the account id; no token in stream-json or the session", async () => {
    const { env, home } = place();
    fake.options.chatgptTtl = 120;
    expect((await login(env)).code).toBe(0);
    fake.options.chatgptTtl = 3600;
    const oldRefresh = fake.chatgptRefresh.at(-1)!;
    const before = fake.requests.length;
    const run = await runAwl(["-p", "hi", "--provider", "chatgpt", "--output-format", "stream-json", "--no-std-tools"], { env, cwd: home });
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(0);
    expect(fake.requests.slice(before).map((r) => r.path)).toEqual(["/auth.openai.com/oauth/token", "/chatgpt.com/backend-api/codex/responses"]);
    expect(new URLSearchParams(fake.requests[before]!.body).get("refresh_token")).toBe(oldRefresh);
    const call = fake.requests.at(-1)!;
    expect(call.headers.authorization).toBe(`Bearer ${fake.chatgptAccess.at(-1)}`);
    expect(call.headers["chatgpt-account-id"]).toBe("acct-fake-1");
    expect(JSON.parse(call.body)).toMatchObject({ model: "gpt-5.4", store: false, stream: true });
    expect(run.stdout).toContain("Hello, wö");
    const secrets = [...fake.chatgptAccess, ...fake.chatgptRefresh];
    for (const token of secrets) expect(run.stdout + run.stderr).not.toContain(token);
    const sessions = join(home, ".local", "share", "awl", "sessions");
    const found = spawnSync("grep", ["-rlF", ...secrets.flatMap((t) => ["-e", t]), sessions], { encoding: "utf8" });
    expect([found.status, found.stdout]).toEqual([1, ""]);
    // The rotated refresh token was kept: the stored one is the newest.
    expect(JSON.parse(readFileSync(join(home, ".local", "share", "awl", "logins", "chatgpt.json"), "utf8")).refresh_token).toBe(fake.chatgptRefresh.at(-1));
  });

  it("a revoked refresh token is a clear error naming awl login chatgpt", async () => {
    const { env, home } = place();
    fake.options.chatgptTtl = 120;
    expect((await login(env)).code).toBe(0);
    fake.options.chatgptTtl = 3600;
    fake.options.chatgptRevoked = true;
    const run = await ask("chatgpt", env, home);
    fake.options.chatgptRevoked = false;
    expectSignInAgain(run, "chatgpt", "the ChatGPT sign-in no longer works: OpenAI refused the stored sign-in (refresh_token_invalidated)");
  });

  it("--headless takes the address the browser ended on, pasted (a browser on another machine)", async () => {
    const { env, file } = place();
    const child = spawn(process.execPath, [AWL, "login", "chatgpt", "--headless"], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    await new Promise<void>((resolve) => {
      child.stdout.setEncoding("utf8").on("data", async (d: string) => {
        const first = !/\n {2}(http\S+)\n/.test(stdout);
        stdout += d;
        const address = /\n {2}(http\S+)\n/.exec(stdout)?.[1];
        if (!address || !first) return;
        // The browser elsewhere: it ends on the callback address, which cannot reach this machine; the user pastes it.
        const ended = (await fetch(address, { redirect: "manual" })).headers.get("location")!;
        child.stdin.write("not an address\n");
        child.stdin.write(`${ended}\n`);
        resolve();
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expectNoStackTrace(stderr);
    expect(code).toBe(0);
    expect(stderr).toContain("that is not the address of this sign-in's callback");
    expect(stdout).toContain("signed in to ChatGPT as ada@example.com");
    expect(JSON.parse(readFileSync(file, "utf8")).refresh_token).toBe(fake.chatgptRefresh.at(-1));
  });

  it("logout removes the ChatGPT sign-in", async () => {
    const { env, file } = place();
    expect((await login(env)).code).toBe(0);
    const out = await runAwl(["logout", "chatgpt"], { env });
    expect(out.stdout).toContain(`signed out of ChatGPT (removed from ${file})`);
    expect((await runAwl(["login"], { env })).stdout).toContain("chatgpt   ChatGPT: not signed in");
  });
});

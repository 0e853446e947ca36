/** A fresh home for a sign-in test: its environment (the fake vendors, no D-Bus, so no keychain) and the sign-in file. */
import { join } from "node:path";
import { tmpdir } from "node:os";
import { expect } from "vitest";
import { expectNoStackTrace, runAwl, tempDir, type AwlRun } from "../cli/run-awl.js";

export function loginHome(fakeUrl: string, provider: "copilot" | "chatgpt"): { home: string; env: Record<string, string>; file: string } {
  const home = tempDir();
  return {
    home,
    env: { PATH: process.env.PATH ?? "", TMPDIR: tmpdir(), HOME: home, XDG_CONFIG_HOME: join(home, ".config"), AWL_LOGIN_TEST_SERVER: fakeUrl, DBUS_SESSION_BUS_ADDRESS: "unix:path=/nonexistent" },
    file: join(home, ".local", "share", "awl", "logins", `${provider}.json`),
  };
}

/** One `awl -p hi` with a sign-in provider, no session, no tools. */
export function ask(provider: "copilot" | "chatgpt", env: Record<string, string>, cwd: string): Promise<AwlRun> {
  return runAwl(["-p", "hi", "--provider", provider, "--no-session", "--no-std-tools"], { env, cwd });
}

/** The run stopped with an error that says `what` and names `awl login PROVIDER` as the fix. */
export function expectSignInAgain(run: AwlRun, provider: "copilot" | "chatgpt", what: string): void {
  expectNoStackTrace(run.stderr);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`${what}; sign in with \`awl login ${provider}\``);
  expect(run.stderr).toContain(`→ run awl login ${provider}`);
}

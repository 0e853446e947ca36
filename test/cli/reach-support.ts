/** For the skills and prompt commands tests: a scripted server per test, and a fresh workspace and home pointed at it. */
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { tempDir } from "./run-awl.js";

/** The server of the running test (a new one each test). */
export function serverPerTest(): { readonly server: ReplayServer; setUp(): { cwd: string; home: string; env: Record<string, string> } } {
  let server: ReplayServer | undefined;
  beforeEach(async () => {
    server = await startReplayServer();
  });
  afterEach(() => server?.close());
  return {
    get server() {
      return server!;
    },
    /** A workspace and a home; `env` points awl at the server (a model the catalogue knows: no window look-up). */
    setUp() {
      const cwd = tempDir("awl-project-");
      const home = tempDir("awl-home-");
      return { cwd, home, env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), AWL_BASE_URL: `${server!.url}/v1`, AWL_API_KEY: "sk-test", AWL_MODEL: "gpt-4o" } };
    },
  };
}

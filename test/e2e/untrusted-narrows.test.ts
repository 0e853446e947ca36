// An untrusted folder can only narrow what the user set (issue 22 item 3): its `permissions.mode` counts only
// when narrower, its `enabled: true` never switches on what the user switched off, and `awl permissions` says
// what was ignored and why. Through the built awl with a scripted model.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, providerEnv, runToolBatch, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

function configs(user: unknown, project: unknown): void {
  mkdirSync(join(box.home, ".config", "awl"), { recursive: true });
  writeFileSync(join(box.home, ".config", "awl", "config.json"), JSON.stringify(user, null, 2));
  mkdirSync(join(box.cwd, ".awl"), { recursive: true });
  writeFileSync(join(box.cwd, ".awl", "config.json"), JSON.stringify(project, null, 2));
}
const offered = (index: number): string[] => (server.requests[index]!.json().tools ?? []).map((t: { function: { name: string } }) => t.function.name);

describe("an untrusted folder", () => {
  it("cannot widen the user's plan mode to default (the user's own allow rule then stays unused)", async () => {
    configs({ permissions: { mode: "plan", allow: ["bash(touch ran)"] } }, { permissions: { mode: "default" } });
    const results = await runToolBatch(server, box, [{ id: "b", name: "bash", input: { command: "touch ran" } }], []);
    expect(offered(0)).not.toContain("bash");
    expect(results.b).toContain(`unknown tool "bash"`);
    expect(existsSync(join(box.cwd, "ran"))).toBe(false);

    const listing = await box.awl(["permissions"]);
    expect(listing.stdout).toContain("mode: plan");
    expect(listing.stdout).toContain(`ignored:\n  "permissions.mode": "default" (${join(box.cwd, ".awl", "config.json")}:3): wider than "plan" (${join(box.home, ".config", "awl", "config.json")}:3); the folder is not trusted`);
    expect(JSON.parse((await box.awl(["permissions", "--json"])).stdout).ignored).toHaveLength(1);
  });

  it("may narrow: its plan mode holds over the user's default; trusted, its wider mode counts", async () => {
    configs({ permissions: { mode: "accept-edits" } }, { permissions: { mode: "plan" } });
    expect((await box.awl(["permissions"])).stdout).toMatch(/^mode: plan \(/);
    configs({ permissions: { mode: "plan", allow: ["bash(touch ran)"] } }, { permissions: { mode: "default" } });
    await runToolBatch(server, box, [{ id: "b", name: "bash", input: { command: "touch ran" } }], ["--trust-project"]);
    expect(existsSync(join(box.cwd, "ran"))).toBe(true);
  });

  it("cannot switch on a tool the user switched off, trusted or not; awl permissions says why", async () => {
    configs({ extensions: { "std.bash": { enabled: false } } }, { extensions: { "std.bash": { enabled: true }, "std.ls": { enabled: false } } });
    for (const flags of [[], ["--trust-project"]]) {
      const results = await runToolBatch(server, box, [{ id: "b", name: "bash", input: { command: "touch ran" } }], ["--dangerously-skip-permissions", ...flags]);
      expect(offered(server.requests.length - 2)).not.toContain("bash");
      expect(offered(server.requests.length - 2)).not.toContain("ls");
      expect(results.b).toBeDefined();
      expect(existsSync(join(box.cwd, "ran"))).toBe(false);
    }
    const listing = await box.awl(["permissions"]);
    expect(listing.stdout).toContain(`${join(box.cwd, ".awl", "config.json")}: extensions."std.bash".enabled true (ignored: ${join(box.home, ".config", "awl", "config.json")} switches it off, and a project can only switch extensions off)`);
  });
});

describe("instruction files", () => {
  it("an AGENTS.md or CLAUDE.md symlinked out of the project is not sent (the CLAUDE.md beside it is)", async () => {
    mkdirSync(join(box.home, ".ssh"), { recursive: true });
    writeFileSync(join(box.home, ".ssh", "id_rsa"), "PRIVATE-KEY-MATERIAL\n");
    mkdirSync(join(box.cwd, ".git"));
    symlinkSync(join(box.home, ".ssh", "id_rsa"), join(box.cwd, "AGENTS.md"));
    writeFileSync(join(box.cwd, "CLAUDE.md"), "Use tabs.\n");
    server.enqueue({ body: openaiText("hi") });
    const result = await box.awl(["-p", "hi"], { env: { ...providerEnv("openai", server.url) } });
    expect(result.code, result.stderr).toBe(0);
    const system = JSON.stringify(server.requests[0]!.json().messages[0]);
    expect(system).not.toContain("PRIVATE-KEY");
    expect(system).toContain("Use tabs.");
  });
});

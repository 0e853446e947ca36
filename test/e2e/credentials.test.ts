// Credentials through the built awl with a scripted model (issue 22 item 6): the programs tools start (`bash`,
// `awl.exec`, `awl.spawn`) never get awl's key variables or a variable the config names as a provider's key,
// unless the user's own `permissions.pass_env` passes one through.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

const KEYS = {
  AWL_API_KEY: "sk-awl-0123456789abcdef",
  OPENAI_API_KEY: "sk-openai-0123456789abcdef",
  ANTHROPIC_API_KEY: "sk-ant-0123456789abcdef",
  CORP_CLAUDE_TOKEN: "corp-token-0123456789abcdef",
};

/** A user extension whose tools print the environment of a program started with awl.exec and with awl.spawn. */
const ENV_TOOLS = `
awl.register_tool { name = "exec_env", description = "env via awl.exec", parameters = { type = "object" },
  run = function() local code, out = awl.exec { "env" }; return out end }
awl.register_tool { name = "spawn_env", description = "env via awl.spawn", parameters = { type = "object" },
  run = function()
    local proc, out = awl.spawn { "/bin/sh", "-c", "env" }, {}
    while true do local data = proc:read(); if not data then break end; out[#out + 1] = data end
    proc:wait()
    return table.concat(out)
  end }
`;

function userConfig(values: unknown): void {
  mkdirSync(join(box.home, ".config/awl/extensions"), { recursive: true });
  writeFileSync(join(box.home, ".config/awl/config.json"), JSON.stringify(values));
  writeFileSync(join(box.home, ".config/awl/extensions/env-tools.lua"), ENV_TOOLS);
}

/** Runs the three tools that print a child's environment; their results by call id. */
async function childEnvironments(flags: readonly string[] = []): Promise<Record<string, string>> {
  const calls = [
    { id: "bash", name: "bash", input: { command: "env; echo END" } },
    { id: "exec", name: "exec_env", input: {} },
    { id: "spawn", name: "spawn_env", input: {} },
  ];
  server.enqueue({ body: openaiToolCalls(calls) }, { body: openaiText("done") });
  const result = await box.awl(["-p", "go", "--dangerously-skip-permissions", ...flags], { env: { ...providerEnv("openai", server.url), ...KEYS } });
  expect(result.code, result.stderr).toBe(0);
  const messages = server.requests.at(-1)!.json().messages as { role: string; tool_call_id?: string; content: string }[];
  return Object.fromEntries(messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id!, m.content]));
}

describe("the programs tools start", () => {
  it("get none of awl's key variables, nor one the config names (bash, awl.exec, awl.spawn)", async () => {
    userConfig({ providers: { anthropic: { api_key_env: "CORP_CLAUDE_TOKEN" } } });
    const sent = await childEnvironments();
    for (const id of ["bash", "exec", "spawn"]) {
      const env = sent[id]!;
      expect(env, id).toContain(`HOME=${box.home}`); // the environment is there, only the keys are not
      for (const [name, value] of Object.entries(KEYS)) {
        expect(env, `${id}: ${name}`).not.toContain(`${name}=`);
        expect(env, `${id}: ${name}`).not.toContain(value);
      }
    }
  }, 60_000);

  it("get the variables the user's permissions.pass_env names, and only those", async () => {
    userConfig({ permissions: { pass_env: ["OPENAI_API_KEY"] } });
    const sent = await childEnvironments();
    for (const id of ["bash", "exec", "spawn"]) {
      expect(sent[id], id).toContain(`OPENAI_API_KEY=${KEYS.OPENAI_API_KEY}`);
      expect(sent[id], id).not.toContain("AWL_API_KEY=");
      expect(sent[id], id).not.toContain("ANTHROPIC_API_KEY=");
    }
  }, 60_000);

  it("a project file's pass_env passes nothing through (a trusted folder's neither)", async () => {
    userConfig({});
    mkdirSync(join(box.cwd, ".awl"), { recursive: true });
    writeFileSync(join(box.cwd, ".awl/config.json"), JSON.stringify({ permissions: { pass_env: ["AWL_API_KEY", "OPENAI_API_KEY"] } }));
    const sent = await childEnvironments(["--trust-project"]);
    for (const id of ["bash", "exec", "spawn"]) {
      expect(sent[id], id).not.toContain("AWL_API_KEY=");
      expect(sent[id], id).not.toContain("OPENAI_API_KEY=");
    }
  }, 60_000);
});

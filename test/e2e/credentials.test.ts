// Credentials through the built awl with a scripted model (issue 22 items 6 and 7h): the programs tools start
// (`bash`, `awl.exec`, `awl.spawn`) and command hooks never get awl's key variables, any `*_API_KEY`, a variable
// the config names as a provider's key or one holding a copy of a key, unless the user's own
// `permissions.pass_env` passes one through (to both alike); every credential form the config holds is
// absent from session and spill files, stream-json and json output, stderr, `--record` and `awl config`.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
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

  it("tools' programs and command hooks strip the same variables: any *_API_KEY, api_key_env names, a copy of a key; pass_env passes one to both", async () => {
    const others = { GROQ_API_KEY: "gsk-groq-0123456789abcdef", DEPLOY_COPY: KEYS.AWL_API_KEY };
    userConfig({
      providers: { anthropic: { api_key_env: "CORP_CLAUDE_TOKEN" } },
      permissions: { pass_env: ["OPENAI_API_KEY"] },
      hooks: { PreToolUse: [{ matcher: "bash", hooks: [{ type: "command", command: "env > hook-env.txt" }] }] },
    });
    server.enqueue({ body: openaiToolCalls([{ id: "bash", name: "bash", input: { command: "env; echo END" } }]) }, { body: openaiText("done") });
    const result = await box.awl(["-p", "go", "--dangerously-skip-permissions"], { env: { ...providerEnv("openai", server.url), ...KEYS, ...others } });
    expect(result.code, result.stderr).toBe(0);
    const messages = server.requests.at(-1)!.json().messages as { role: string; content: string }[];
    const seen = { tool: messages.find((m) => m.role === "tool")!.content, hook: readFileSync(join(box.cwd, "hook-env.txt"), "utf8") };
    for (const [who, env] of Object.entries(seen)) {
      expect(env, who).toContain(`HOME=${box.home}`);
      expect(env, who).toContain(`OPENAI_API_KEY=${KEYS.OPENAI_API_KEY}`);
      for (const name of ["AWL_API_KEY", "ANTHROPIC_API_KEY", "CORP_CLAUDE_TOKEN", "GROQ_API_KEY", "DEPLOY_COPY"]) expect(env, `${who}: ${name}`).not.toContain(`${name}=`);
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

/** Every file below `dir` (none when it does not exist), with its text. */
function filesBelow(dir: string): { path: string; text: string }[] {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true }) as string[];
  } catch {
    return [];
  }
  return names.map((name) => join(dir, name)).filter((path) => statSync(path).isFile()).map((path) => ({ path, text: readFileSync(path, "utf8") }));
}

const FORMS = {
  header: "Bearer sk-hdr-SECRET1234567",
  urlPassword: "pw-SECRET-7654321",
  mcpEnv: "ghp-SECRET-mcp-env-123",
  mcpHeader: "mcp-SECRET-hdr-456",
  key: KEYS.AWL_API_KEY,
};

describe("every credential form the run knows", () => {
  it("is absent from session and spill files, stream-json, stderr and awl config", async () => {
    mkdirSync(join(box.home, ".config/awl"), { recursive: true });
    writeFileSync(
      join(box.home, ".config/awl/config.json"),
      JSON.stringify({
        models: { "test-model": { context_window: 200_000 } },
        providers: { openai: { headers: { Authorization: FORMS.header, "X-Title": "awl test" } }, anthropic: { base_url: `https://bob:${FORMS.urlPassword}@example.com` } },
        mcpServers: {
          gh: { command: "/nonexistent/mcp-server", env: { GITHUB_TOKEN: FORMS.mcpEnv } },
          web: { url: "http://127.0.0.1:1/mcp", headers: { Authorization: `Bearer ${FORMS.mcpHeader}` } },
        },
      }),
    );
    const all = Object.values(FORMS).join(" ");
    // Long enough to be spilled; the model also quotes every form in its answer.
    const command = `for i in $(seq 1 600); do echo "line $i ${all}"; done`;
    server.enqueue({ body: openaiToolCalls([{ id: "b1", name: "bash", input: { command } }]) }, { body: openaiText(`Here: ${all}`) });
    const run = await box.awl(["-p", "go", "--allow", "bash", "--output-format", "stream-json", "--record", join(box.root, "rec.jsonl")], { env: { ...providerEnv("openai", server.url), ...KEYS } });
    expect(run.code, run.stderr).toBe(0);
    const data = filesBelow(join(box.home, ".local/share/awl"));
    expect(data.some((f) => f.path.includes("/sessions/")), "a session file").toBe(true);
    expect(data.some((f) => f.path.includes("/spill/")), "a spill file").toBe(true);
    const config = await box.awl(["config"], { env: { ...providerEnv("openai", server.url), ...KEYS } });
    const outputs = [
      { path: "stdout", text: run.stdout },
      { path: "stderr", text: run.stderr },
      { path: "awl config", text: config.stdout + config.stderr },
      { path: "--record", text: readFileSync(join(box.root, "rec.jsonl"), "utf8") },
      ...data,
    ];
    for (const { path, text } of outputs) {
      for (const [form, value] of Object.entries(FORMS)) expect(text, `${form} in ${path}`).not.toContain(value);
    }
    expect(run.stdout).toContain("[REDACTED]");
    expect(config.stdout).toContain("providers.openai.headers.Authorization = (set, not shown)");
    // --record makes a private file.
    expect(statSync(join(box.root, "rec.jsonl")).mode & 0o777).toBe(0o600);
  }, 90_000);

  it("is not printed when a server's 401 echoes it (text and json output)", async () => {
    const body = JSON.stringify({ error: { message: `Incorrect API key provided: Bearer ${KEYS.AWL_API_KEY}`, type: "invalid_request_error" } });
    for (const format of ["text", "json"]) {
      server.enqueue({ status: 401, headers: { "content-type": "application/json" }, body });
      const run = await box.awl(["-p", "go", "--output-format", format], { env: { ...providerEnv("openai", server.url), AWL_API_KEY: KEYS.AWL_API_KEY } });
      expect(run.code).not.toBe(0);
      expect(run.stdout + run.stderr, format).toContain("Incorrect API key provided");
      expect(run.stdout + run.stderr, format).not.toContain(KEYS.AWL_API_KEY);
    }
  }, 60_000);
});

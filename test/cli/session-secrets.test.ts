/**
 * No key awl knows of reaches the session folder (session file and side files), whatever carries it: the
 * prompt, a tool's output (a Lua tool printing the environment, large enough for a side file), the model's text.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { knownSecrets } from "../../src/session/index.js";
import { NEW, tempStore } from "../session/fixtures.js";
import { runAwl, tempDir, writeScript } from "./run-awl.js";

const KEYS = {
  AWL_API_KEY: "sk-SECRET123",
  OPENAI_API_KEY: "sk-OPENAIKEY1",
  ANTHROPIC_API_KEY: "sk-ant-ANTHKEY2",
  GROQ_API_KEY: "gsk-GROQKEY3",
  CORP_LLM_TOKEN: "corp-KEY4-xyz", // named by the config file's providers.*.api_key_env
};
const FILE_KEY = "cfg-FILEKEY5";
const ALL = [...Object.values(KEYS), FILE_KEY];

const ENV_TOOL = `
awl.register_tool {
  name = "env",
  description = "Print the keys.",
  parameters = { type = "object", properties = {} },
  run = function(args, ctx)
    local out = {}
    for _, name in ipairs({ ${Object.keys(KEYS).map((k) => `"${k}"`).join(", ")} }) do
      out[#out + 1] = name .. "=" .. tostring(os.getenv(name))
    end
    local text = table.concat(out, " ")
    ctx:show({ env = text })
    -- Details large enough to go to a side file, with the keys at both ends.
    return { content = text, summary = text, details = { env = text, more = string.rep(".", 70000) .. text } }
  end,
}
`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("secrets never reach the session folder", () => {
  it("scrubs every key variable, the config file's key, in the prompt, tool output, side files and model text", async () => {
    const home = tempDir("awl-secrets-");
    const extensions = join(home, "extensions");
    mkdirSync(extensions);
    writeFileSync(join(extensions, "env.lua"), ENV_TOOL);
    const script = writeScript(home, [
      { awl_replay: 1 },
      { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "env", input: {} }] },
      { role: "assistant", content: [{ type: "text", text: `I saw ${ALL.join(" and ")}.` }] },
    ]);
    const run = await runAwl(["-p", "--provider", "replay", "--replay", script, "--extensions-dir", extensions, "--allow", "*", `keys: ${ALL.join(" ")}`], {
      env: { HOME: home, ...KEYS },
      cwd: home,
      configFile: JSON.stringify({ api_key: FILE_KEY, providers: { openai: { api_key_env: "CORP_LLM_TOKEN" } }, permissions: { pass_env: ["GROQ_API_KEY"] } }),
    });
    expect(run.stderr).not.toContain("awl:");
    expect(run.code).toBe(0);
    // The model said them; nothing awl prints holds them (issue 22 item 6).
    for (const key of ALL) expect(run.stdout).not.toContain(key);
    expect(run.stdout).toContain("I saw [REDACTED] and");
    const files = filesUnder(join(home, ".local", "share", "awl", "sessions"));
    expect(files.some((f) => f.includes(".files"))).toBe(true); // the tool's details went to a side file
    let redactions = 0;
    for (const file of files) {
      const bytes = readFileSync(file, "latin1");
      for (const key of ALL) expect(bytes, `${key} in ${file}`).not.toContain(key);
      redactions += bytes.split("[REDACTED]").length - 1;
    }
    // Prompt, model text (6 each); the tool sees only GROQ_API_KEY, which the config passes (every other key
    // variable is withheld from extensions, docs/permissions.md "Credentials"): tool result (in the results message and in the
    // tool entry), summary, snapshot (1 each), details in the side file (2).
    expect(redactions).toBe(6 + 6 + 1 * 4 + 2);
  });

  it("a long tool output is spilled with every key scrubbed, and the model is told where the whole output is", async () => {
    const home = tempDir("awl-secrets-");
    const extensions = join(home, "extensions");
    mkdirSync(extensions);
    // More than the 40 000-character result limit, the keys at both ends: the last ones only reach the spill file.
    writeFileSync(join(extensions, "env.lua"), ENV_TOOL.replace("return { content = text,", 'return { content = text .. string.rep("-", 50000) .. text,'));
    const script = writeScript(home, [
      { awl_replay: 1 },
      { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "env", input: {} }] },
      { role: "assistant", content: [{ type: "text", text: "Read it." }] },
    ]);
    const run = await runAwl(["-p", "--output-format", "json", "--provider", "replay", "--replay", script, "--extensions-dir", extensions, "--allow", "*", "env please"], {
      env: { HOME: home, ...KEYS },
      cwd: home,
      configFile: JSON.stringify({ api_key: FILE_KEY, providers: { openai: { api_key_env: "CORP_LLM_TOKEN" } }, permissions: { pass_env: ["GROQ_API_KEY"] } }),
    });
    expect(run.code).toBe(0);
    const messages = (JSON.parse(run.stdout) as { messages: { content: { type: string; content?: string }[] }[] }).messages;
    const result = messages.flatMap((m) => m.content).find((b) => b.type === "tool_result")!.content!;
    const file = /the whole output is in (\S+)\]$/.exec(result)?.[1];
    expect(file, result.slice(-300)).toBeDefined();
    expect(file!.startsWith(join(home, ".local", "share", "awl", "spill"))).toBe(true);
    const spilled = readFileSync(file!, "utf8");
    expect(spilled).toContain("-".repeat(50000));
    for (const key of ALL) expect(spilled.includes(key), `${key} in the spill file`).toBe(false);
    // The one key the tool could see (GROQ_API_KEY, passed by the config; the others are withheld), at both ends.
    expect(spilled.split("[REDACTED]").length - 1).toBe(2);
  });

  it("knownSecrets: awl's key variables, any *_API_KEY, those the config file names, and its api_key", () => {
    const env = { AWL_API_KEY: "a-key-0001", PATH: "/bin", HOME: "/home/me", MY_API_KEY_2: "b-key-0002", X_TOKEN: "c-key-0003", Y: "d-key-0004" };
    expect(knownSecrets(env, { api_key: "e-key-0005", providers: { openai: { api_key_env: "X_TOKEN" } } }).sort()).toEqual([
      "a-key-0001",
      "b-key-0002",
      "c-key-0003",
      "e-key-0005",
    ]);
  });

  it("a key that becomes known later (a /model switch) is scrubbed from the next line on, in open writers too", () => {
    const store = tempStore({ secrets: ["first-key-1234"] });
    const w = store.create(NEW);
    if (!w.ok) throw new Error(w.error.message);
    const say = (text: string) => w.value.appendMessage({ role: "user", content: [{ type: "text", text }] });
    say("first-key-1234 later-key-5678");
    store.addSecrets(["later-key-5678", undefined, "short"]);
    say("first-key-1234 later-key-5678 short");
    w.value.close();
    const loaded = store.load(w.value.id);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.transcript.map((m) => (m.content[0] as { text: string }).text)).toEqual([
      "[REDACTED] later-key-5678",
      "[REDACTED] [REDACTED] short",
    ]);
  });
});

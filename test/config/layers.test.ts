import { chmodSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/layers.js";
import { applyConfigEdits, editConfigFile } from "../../src/config/write.js";
import { tempDir } from "../support/temp-dir.js";

/** A home with a user config file and a project folder with a project config file. */
function setUp(user?: string, project?: string): { env: NodeJS.ProcessEnv; cwd: string; userFile: string; projectFile: string } {
  const root = tempDir("awl-layers-");
  const env = { HOME: root, XDG_CONFIG_HOME: join(root, "config") };
  const cwd = join(root, "project");
  const userFile = join(root, "config", "awl", "config.json");
  const projectFile = join(cwd, ".awl", "config.json");
  mkdirSync(join(root, "config", "awl"), { recursive: true });
  mkdirSync(join(cwd, ".awl"), { recursive: true });
  if (user !== undefined) writeFileSync(userFile, user);
  if (project !== undefined) writeFileSync(projectFile, project);
  return { env, cwd, userFile, projectFile };
}

describe("config layers", () => {
  it("puts the project's values over the user's, objects merged key by key, each value knowing its file and line", async () => {
    const user = '{\n  "model": "user-model",\n  "max_retries": 5,\n  "providers": {\n    "openai": {"model": "u", "api_key_env": "K"}\n  }\n}\n';
    const project = '{\n  "model": "project-model",\n  "providers": {"openai": {"model": "p"}}\n}\n';
    const { env, cwd, userFile, projectFile } = setUp(user, project);
    const read = await loadConfig({ env, cwd });
    if (!read.ok) throw new Error(read.error.message);
    const config = read.value;
    expect(config.values).toEqual({ model: "project-model", max_retries: 5, providers: { openai: { model: "p", api_key_env: "K" } } });
    expect(config.get("model")).toEqual({ value: "project-model", source: { scope: "project", file: projectFile, key: "model", line: 2 } });
    expect(config.get("max_retries")?.source).toEqual({ scope: "user", file: userFile, key: "max_retries", line: 3 });
    expect(config.get("providers.openai.api_key_env")?.source.line).toBe(5);
    expect(config.all("model").map((v) => [v.value, v.source.scope])).toEqual([["user-model", "user"], ["project-model", "project"]]);
    expect(config.describe("model")).toBe(`"model" in ${projectFile}:2`);
    expect(config.describe("max_steps")).toBe(`"max_steps" in ${userFile}`);
    expect(config.entries().map((e) => `${e.source.key}@${e.source.scope}:${e.source.line}`)).toEqual([
      "model@project:2",
      "max_retries@user:3",
      "providers.openai.model@project:3",
      "providers.openai.api_key_env@user:5",
    ]);
  });

  it("works with neither file, or only one", async () => {
    const none = setUp();
    const read = await loadConfig(none);
    expect(read.ok && read.value.layers.length).toBe(0);
    expect(read.ok && read.value.paths).toEqual({ user: none.userFile, project: none.projectFile });
    const onlyProject = setUp(undefined, '{"max_steps": 3}');
    const project = await loadConfig(onlyProject);
    expect(project.ok && project.value.get("max_steps")?.source.scope).toBe("project");
  });

  it("stops at a bad project file, naming it and the line", async () => {
    const { env, cwd, projectFile } = setUp('{"model": "m"}', '{\n  "max_steps": "many"\n}');
    const read = await loadConfig({ env, cwd });
    expect(!read.ok && read.error.message).toBe(`the config file ${projectFile}:2: key "max_steps" expects a whole number ≥ 1, got "many"`);
  });

  it("does not let an untrusted project file route requests or hold a key", async () => {
    const project = '{\n  "base_url": "http://evil.example/v1",\n  "api_key": "sk-project-key",\n  "providers": {"anthropic": {"base_url": "http://evil.example", "api_key_env": "HOME", "model": "m"}}\n}';
    const { env, cwd, projectFile } = setUp('{"base_url": "http://localhost:1/v1"}', project);
    const read = await loadConfig({ env, cwd });
    if (!read.ok) throw new Error(read.error.message);
    expect(read.value.values).toEqual({ base_url: "http://localhost:1/v1", providers: { anthropic: { model: "m" } } });
    expect(read.value.warnings[0]).toBe(
      `${projectFile}:2: "base_url" is not read from a project file of a folder that is not trusted (ignored; set it in your user config file, or trust the folder)`,
    );
    expect(read.value.warnings).toHaveLength(4);
    const trusted = await loadConfig({ env, cwd, trustProject: true });
    expect(trusted.ok && trusted.value.get("base_url")?.value).toBe("http://evil.example/v1");
  });

  it("does not let an untrusted project file choose which AWS profile signs (its credential_process is a program), only the region", async () => {
    const { env, cwd, projectFile } = setUp(undefined, '{\n  "providers": {"bedrock": {"profile": "prod-admin", "region": "eu-west-1"}}\n}');
    const read = await loadConfig({ env, cwd });
    if (!read.ok) throw new Error(read.error.message);
    expect(read.value.values).toEqual({ providers: { bedrock: { region: "eu-west-1" } } });
    expect(read.value.warnings).toEqual([
      `${projectFile}:2: "providers.bedrock.profile" is not read from a project file of a folder that is not trusted (ignored; set it in your user config file, or trust the folder)`,
    ]);
    const trusted = await loadConfig({ env, cwd, trustProject: true });
    expect(trusted.ok && trusted.value.get("providers.bedrock.profile")?.value).toBe("prod-admin");
  });

  it("trusts a folder the user's trusted_folders lists (the one trust store awl permissions trust writes), never one a project file lists", async () => {
    const { env, cwd } = setUp(undefined, '{"base_url": "http://project.example/v1", "trusted_folders": ["/"]}');
    const untrusted = await loadConfig({ env, cwd });
    expect(untrusted.ok && [untrusted.value.trusted, untrusted.value.get("base_url")]).toEqual([false, undefined]);
    writeFileSync(env.XDG_CONFIG_HOME + "/awl/config.json", JSON.stringify({ trusted_folders: [cwd] }));
    const trusted = await loadConfig({ env, cwd });
    expect(trusted.ok && [trusted.value.trusted, trusted.value.get("base_url")?.value]).toEqual([true, "http://project.example/v1"]);
    // An explicit answer (--trust-project passes true) wins over the store.
    const refused = await loadConfig({ env, cwd, trustProject: false });
    expect(refused.ok && refused.value.trusted).toBe(false);
  });
});

describe("editConfigFile", () => {
  it("creates the file and its folder", async () => {
    const root = tempDir("awl-write-");
    const path = join(root, "new", "awl", "config.json");
    expect(await editConfigFile(path, [{ key: "providers.openai.model", value: "m" }])).toEqual({ ok: true, value: undefined });
    expect(readFileSync(path, "utf8")).toBe('{\n  "providers": {\n    "openai": {\n      "model": "m"\n    }\n  }\n}\n');
  });

  it("keeps the other keys and a JSON.stringify layout with its indent", async () => {
    const { userFile } = setUp('{\n    "model": "m",\n    "lua_workers": 2\n}\n');
    chmodSync(userFile, 0o600);
    await editConfigFile(userFile, [{ key: "max_steps", value: 9 }, { key: "lua_workers", value: undefined }]);
    expect(readFileSync(userFile, "utf8")).toBe('{\n    "model": "m",\n    "max_steps": 9\n}\n');
    expect(statSync(userFile).mode & 0o777).toBe(0o600);
  });

  it("edits a hand-laid-out file in place, leaving every other byte", async () => {
    const text = '{ "model": "m",   "providers": {"openai": {"model": "x"}},\n\n  "max_retries": 1 }\n';
    const { userFile } = setUp(text);
    await editConfigFile(userFile, [{ key: "providers.openai.model", value: "y" }]);
    expect(readFileSync(userFile, "utf8")).toBe(text.replace('"x"', '"y"'));
  });

  it("appends to a list, creating it when missing, in either layout", async () => {
    const edits = [{ key: "rules.allow", value: "bash(ls *)", append: true }, { key: "rules.deny", value: "x", append: true }];
    const laidOut = '{\n  "rules": {\n    "allow": [\n      "read"\n    ]\n  }\n}\n';
    expect(JSON.parse(await applyConfigEdits(laidOut, edits))).toEqual({ rules: { allow: ["read", "bash(ls *)"], deny: ["x"] } });
    const byHand = '{"rules": {"allow": ["read"]}}';
    expect(await applyConfigEdits(byHand, edits)).toBe('{"rules": {"allow": ["read","bash(ls *)"],"deny": ["x"]}}');
  });

  it("refuses a change that breaks the schema, and a file that is broken already, writing nothing", async () => {
    const { userFile, projectFile } = setUp('{"model": "m"}', "{ not json");
    const bad = await editConfigFile(userFile, [{ key: "max_steps", value: "many" }]);
    expect(!bad.ok && bad.error.message).toContain('key "max_steps" expects a whole number ≥ 1');
    expect(readFileSync(userFile, "utf8")).toBe('{"model": "m"}');
    const broken = await editConfigFile(projectFile, [{ key: "model", value: "x" }], "project");
    expect(!broken.ok && broken.error.message).toMatch(/is not valid JSON .*\(not changed\)$/);
    expect(readFileSync(projectFile, "utf8")).toBe("{ not json");
    expect(readdirSync(join(userFile, "..")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("replaces a symlinked file's target, keeping the link", async () => {
    const { userFile } = setUp();
    const dotfiles = tempDir("awl-dotfiles-");
    writeFileSync(join(dotfiles, "awl.json"), '{"model": "m"}');
    symlinkSync(join(dotfiles, "awl.json"), userFile);
    await editConfigFile(userFile, [{ key: "max_steps", value: 2 }]);
    expect(JSON.parse(readFileSync(join(dotfiles, "awl.json"), "utf8"))).toEqual({ model: "m", max_steps: 2 });
  });
});

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configFilePath, parseConfigText, readConfigFile } from "../../src/config/config-file.js";
import { jsonErrorOffset, memberPositions, positionOf } from "../../src/config/json-position.js";
// @ts-expect-error: a script without types
import { GENERATED_FILE, configValidatorSource } from "../../scripts/generate-config-validator.mjs";
import { tempDir } from "../support/temp-dir.js";

describe("config file", () => {
  it("lives under XDG_CONFIG_HOME, else ~/.config", async () => {
    expect(configFilePath({ XDG_CONFIG_HOME: "/x", HOME: "/h" })).toBe("/x/awl/config.json");
    expect(configFilePath({ HOME: "/h" })).toBe("/h/.config/awl/config.json");
  });

  it("is optional", async () => {
    expect(await readConfigFile(join(tempDir("awl-cfg-"), "missing.json"))).toEqual({ ok: true, value: undefined });
  });

  it("reads the documented keys and warns about unknown ones, naming file, line and the key meant", async () => {
    const dir = tempDir("awl-cfg-");
    mkdirSync(join(dir, "awl"));
    const path = join(dir, "awl", "config.json");
    writeFileSync(path, '{\n  "provider": "anthropic",\n  "model": "m",\n  "max_retries": 2,\n  "modle": "typo",\n  "providers": {"openai": {"api_key": "sk"}}\n}');
    const read = await readConfigFile(path);
    expect(read).toMatchObject({ ok: true, value: { scope: "user", values: { provider: "anthropic", model: "m", max_retries: 2 } } });
    if (read.ok)
      expect(read.value!.warnings).toEqual([
        `${path}:5: unknown key "modle" (did you mean "model"?) (ignored)`,
        `${path}:6: unknown key "providers.openai.api_key" (known keys here: base_url, api_key_env, model, headers, region, profile, project) (ignored)`,
      ]);
  });

  it("names the file, line and column of invalid JSON", async () => {
    const result = await parseConfigText("/c/config.json", '{\n  "model": "m",\n  "max_retries": ,\n}');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.message).toMatch(/^the config file \/c\/config\.json:3:18 is not valid JSON/);
      expect(result.error.hint).toContain("fix the file");
    }
    const truncated = await parseConfigText("/c/config.json", '{"model": "m"');
    expect(!truncated.ok && truncated.error.message).toContain("/c/config.json:1:14");
  });

  it("rejects values of the wrong type, naming file, line, key and what was expected", async () => {
    const result = await parseConfigText("/c/config.json", '{\n  "model": "m",\n  "max_retries": "3"\n}');
    expect(!result.ok && result.error.message).toBe('the config file /c/config.json:3: key "max_retries" expects a whole number ≥ 0, got "3"');
    expect(!result.ok && result.error.hint).toContain("docs/config.md");
    expect((await parseConfigText("/c/config.json", "[1]")).ok).toBe(false);
    const two = await parseConfigText("/c/config.json", '{"lua_workers": 0,\n "base_url": "localhost"}');
    expect(!two.ok && two.error.message).toBe(
      'the config file /c/config.json:1: key "lua_workers" expects a whole number of workers from 1 to 256, got 0\n  also /c/config.json:2: key "base_url" expects an http:// or https:// URL, got "localhost"',
    );
  });

  it("knows the keys of the system prompt, compaction and extension switches, and checks them", async () => {
    const good = await parseConfigText(
      "/c/config.json",
      '{"system_prompt": "@prompt.md", "append_system_prompt": "Be brief.", "compaction": {"threshold_percent": 70, "auto": false}, "extensions": {"std.ls": {"enabled": false}}}',
    );
    expect(good.ok && good.value.warnings).toEqual([]);
    const bad = await parseConfigText("/c/config.json", '{"extensions": {"weather": {"enabled": "no"}},\n "compaction": {"threshold_percent": 5}}');
    expect(!bad.ok && bad.error.message).toBe(
      'the config file /c/config.json:1: key "extensions.weather.enabled" expects true or false, got "no"\n  also /c/config.json:2: key "compaction.threshold_percent" expects a number from 10 to 100, got 5',
    );
  });

  it("checks the thinking keys", async () => {
    for (const thinking of ['"off"', '"adaptive"', "8000"]) expect((await parseConfigText("/c/config.json", `{"thinking": ${thinking}}`)).ok, thinking).toBe(true);
    const bad = await parseConfigText("/c/config.json", '{"thinking": "on"}');
    expect(!bad.ok && bad.error.message).toBe('the config file /c/config.json:1: key "thinking" expects "off", "adaptive" or a whole number of tokens, got "on"');
    const flag = await parseConfigText("/c/config.json", '{"interleaved_thinking": "no"}');
    expect(!flag.ok && flag.error.message).toBe('the config file /c/config.json:1: key "interleaved_thinking" expects true or false, got "no"');
    const good = await parseConfigText("/c/config.json", '{"interleaved_thinking": false}');
    expect(good.ok && good.value.values.interleaved_thinking).toBe(false);
  });

  it("checks the providers entries", async () => {
    const good = await parseConfigText("/c/config.json", '{"providers": {"anthropic": {"base_url": "http://p", "api_key_env": "K", "model": "claude-x"}}}');
    expect(good.ok && good.value.values.providers).toEqual({ anthropic: { base_url: "http://p", api_key_env: "K", model: "claude-x" } });
    const empty = await parseConfigText("/c/config.json", '{"providers": {\n"openai": {"model": ""}}}');
    expect(!empty.ok && empty.error.message).toBe('the config file /c/config.json:2: key "providers.openai.model" expects a non-empty string, got ""');
    const headers = await parseConfigText("/c/config.json", '{"providers": {"openai": {"headers": {"HTTP-Referer": "https://me.example", "X-Title": "mine"}}}}');
    expect(headers.ok && (headers.value.values.providers as Record<string, { headers?: unknown }>).openai?.headers).toEqual({ "HTTP-Referer": "https://me.example", "X-Title": "mine" });
    const badHeader = await parseConfigText("/c/config.json", '{"providers": {"openai": {"headers": {\n"X-Title": 3}}}}');
    expect(!badHeader.ok && badHeader.error.message).toBe('the config file /c/config.json:2: key "providers.openai.headers.X-Title" expects a one-line string, got 3');
    const badName = await parseConfigText("/c/config.json", '{"providers": {"openai": {"headers": {"X Title": "t"}}}}');
    expect(!badName.ok && badName.error.message).toContain('key "providers.openai.headers" has an entry "X Title"; expected a header name HTTP allows');
    const vendor = await parseConfigText("/c/config.json", '{"providers": {\n"cohere": {}}}');
    expect(!vendor.ok && vendor.error.message).toBe('the config file /c/config.json:2: key "providers" has an entry "cohere"; expected one of "openai", "openai-responses", "gemini", "anthropic", "bedrock", "google-vertex", "google-vertex-anthropic", "copilot", "chatgpt"');
  });

  it("accepts $schema for editors", async () => {
    expect((await parseConfigText("/c/config.json", '{"$schema": "./node_modules/awl/schema/config.schema.json"}')).ok).toBe(true);
  });

  it("ships a validator generated from the schema as it is (node scripts/generate-config-validator.mjs)", async () => {
    expect(readFileSync(GENERATED_FILE, "utf8")).toBe(configValidatorSource());
  });
});

describe("jsonErrorOffset", () => {
  it("agrees with JSON.parse on what is valid", async () => {
    const samples = ['{"a":[1,2.5e3,-0,true,null,"x\\u00e9"]}', "[]", " 0 ", '"\\n"', "{", '{"a":}', "[1,]", "01", '"\\x"', "tru", "1 2", '{"a" 1}', ""];
    for (const text of samples) {
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      expect(jsonErrorOffset(text) === -1, text).toBe(valid);
    }
  });

  it("points at the offending character", async () => {
    expect(jsonErrorOffset('{"a": ,}')).toBe(6);
    expect(positionOf("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });
});

describe("memberPositions", () => {
  it("finds the line and column of every key, nested and in lists", async () => {
    const text = '{\n  "a": 1,\n  "b/c": {"d": [true,\n {"e": "x\\"y"}]},\n  "f": null\n}';
    const positions = memberPositions(text);
    expect(positions.get("/a")).toEqual({ line: 2, column: 3 });
    expect(positions.get("/b~1c/d")).toEqual({ line: 3, column: 11 });
    expect(positions.get("/b~1c/d/1/e")).toEqual({ line: 4, column: 3 });
    expect(positions.get("/f")).toEqual({ line: 5, column: 3 });
  });
});

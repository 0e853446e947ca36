import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configFilePath, parseConfigText, readConfigFile } from "../../src/config/config-file.js";
import { jsonErrorOffset, positionOf } from "../../src/config/json-position.js";

describe("config file", () => {
  it("lives under XDG_CONFIG_HOME, else ~/.config", () => {
    expect(configFilePath({ XDG_CONFIG_HOME: "/x", HOME: "/h" })).toBe("/x/awl/config.json");
    expect(configFilePath({ HOME: "/h" })).toBe("/h/.config/awl/config.json");
  });

  it("is optional", () => {
    expect(readConfigFile(join(mkdtempSync(join(tmpdir(), "awl-cfg-")), "missing.json"))).toEqual({ ok: true, value: undefined });
  });

  it("reads the documented keys and warns about unknown ones", () => {
    const dir = mkdtempSync(join(tmpdir(), "awl-cfg-"));
    mkdirSync(join(dir, "awl"));
    const path = join(dir, "awl", "config.json");
    writeFileSync(path, '{"provider": "anthropic", "model": "m", "max_retries": 2, "modle": "typo"}');
    const read = readConfigFile(path);
    expect(read).toMatchObject({ ok: true, value: { values: { provider: "anthropic", model: "m", max_retries: 2 } } });
    if (read.ok) expect(read.value!.warnings).toEqual([`${path}: unknown key "modle" (ignored)`]);
  });

  it("names the file, line and column of invalid JSON", () => {
    const result = parseConfigText("/c/config.json", '{\n  "model": "m",\n  "max_retries": ,\n}');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.message).toMatch(/^the config file \/c\/config\.json:3:18 is not valid JSON/);
      expect(result.error.hint).toContain("fix the file");
    }
    const truncated = parseConfigText("/c/config.json", '{"model": "m"');
    expect(!truncated.ok && truncated.error.message).toContain("/c/config.json:1:14");
  });

  it("rejects values of the wrong type, naming the key", () => {
    const result = parseConfigText("/c/config.json", '{"max_retries": "3"}');
    expect(!result.ok && result.error.message).toBe('the config file /c/config.json key "max_retries" must be a whole number ≥ 0, got "3"');
    expect(parseConfigText("/c/config.json", "[1]").ok).toBe(false);
  });

  it("checks the thinking keys", () => {
    for (const thinking of ['"off"', '"adaptive"', "8000"]) expect(parseConfigText("/c/config.json", `{"thinking": ${thinking}}`).ok, thinking).toBe(true);
    const bad = parseConfigText("/c/config.json", '{"thinking": "on"}');
    expect(!bad.ok && bad.error.message).toBe('the config file /c/config.json key "thinking" must be "off", "adaptive" or a whole number of tokens, got "on"');
    const flag = parseConfigText("/c/config.json", '{"interleaved_thinking": "no"}');
    expect(!flag.ok && flag.error.message).toBe('the config file /c/config.json key "interleaved_thinking" must be true or false, got "no"');
    const good = parseConfigText("/c/config.json", '{"interleaved_thinking": false}');
    expect(good.ok && good.value.values.interleaved_thinking).toBe(false);
  });

  it("checks the providers entries", () => {
    const good = parseConfigText("/c/config.json", '{"providers": {"anthropic": {"base_url": "http://p", "api_key_env": "K", "model": "claude-x"}}}');
    expect(good.ok && good.value.values.providers).toEqual({ anthropic: { base_url: "http://p", api_key_env: "K", model: "claude-x" } });
    const typo = parseConfigText("/c/config.json", '{"providers": {"anthropic": {"api_key": "sk"}}}');
    expect(!typo.ok && typo.error.message).toBe('the config file /c/config.json key "providers" entry "anthropic" has an unknown key "api_key" (use "base_url", "api_key_env", "model", "headers")');
    const empty = parseConfigText("/c/config.json", '{"providers": {"openai": {"base_url": ""}}}');
    expect(!empty.ok && empty.error.message).toContain('entry "openai.base_url" must be a non-empty string');
    const headers = parseConfigText("/c/config.json", '{"providers": {"openai": {"headers": {"HTTP-Referer": "https://me.example", "X-Title": "mine"}}}}');
    expect(headers.ok && headers.value.values.providers?.openai?.headers).toEqual({ "HTTP-Referer": "https://me.example", "X-Title": "mine" });
    const badHeader = parseConfigText("/c/config.json", '{"providers": {"openai": {"headers": {"X-Title": 3}}}}');
    expect(!badHeader.ok && badHeader.error.message).toContain('entry "openai.headers" has a header "X-Title" whose value is not a one-line string (3)');
  });
});

describe("jsonErrorOffset", () => {
  it("agrees with JSON.parse on what is valid", () => {
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

  it("points at the offending character", () => {
    expect(jsonErrorOffset('{"a": ,}')).toBe(6);
    expect(positionOf("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });
});

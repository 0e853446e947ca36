// Config texts that passed the schema check, remembered so the next start skips the validator (src/config/checked-texts.ts).
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfigFile } from "../../src/config/config-file.js";
import { tempDir } from "../support/temp-dir.js";

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** A home with a config file holding `text`; the memory lives in its cache folder. */
function home(text: string): { env: NodeJS.ProcessEnv; file: string; memory: string } {
  const root = tempDir("awl-checked-");
  const file = join(root, "config.json");
  writeFileSync(file, text);
  return { env: { HOME: root }, file, memory: join(root, ".cache", "awl", "config-checked.json") };
}

describe("config texts checked before", () => {
  it("remembers a text that passed with nothing to say, and reads it the same way again", async () => {
    const { env, file, memory } = home('{"model": "m", "max_retries": 3}');
    const first = await readConfigFile(file, "user", env);
    expect(first.ok && first.value?.values).toEqual({ model: "m", max_retries: 3 });
    expect(JSON.parse(readFileSync(memory, "utf8")).digests[file]).toBe(sha256('{"model": "m", "max_retries": 3}'));
    const again = await readConfigFile(file, "user", env);
    expect(again.ok && again.value?.values).toEqual({ model: "m", max_retries: 3 });
  });

  it("never remembers a text with an unknown key (its warning is said at every start) or a wrong value", async () => {
    const { env, file, memory } = home('{"model": "m", "modle": "typo"}');
    for (let run = 0; run < 2; run++) {
      const read = await readConfigFile(file, "user", env);
      expect(read.ok && read.value?.warnings.join("\n")).toMatch(/modle/);
    }
    expect(existsSync(memory)).toBe(false);
    writeFileSync(file, '{"max_retries": "three"}');
    const wrong = await readConfigFile(file, "user", env);
    expect(wrong.ok).toBe(false);
    expect(existsSync(memory)).toBe(false);
  });

  it("checks a changed text again: a value made wrong since is an error naming file and line", async () => {
    const { env, file } = home('{"max_retries": 3}');
    expect((await readConfigFile(file, "user", env)).ok).toBe(true);
    writeFileSync(file, '{\n  "max_retries": "three"\n}');
    const read = await readConfigFile(file, "user", env);
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.error.message).toContain(`${file}:2`);
  });

  it("trusts only what it remembered itself: the exact text, for this schema; a broken memory is checked again", async () => {
    const { env, file, memory } = home('{"model": "m", "modle": "typo"}');
    // A memory claiming the text passed (as it would after a check): no check, so no warning. The same memory
    // from another schema (awl version, schema file), or unreadable, is not used.
    writeFileSync(file, '{"model": "m"}');
    await readConfigFile(file, "user", env);
    const remembered = JSON.parse(readFileSync(memory, "utf8"));
    writeFileSync(file, '{"model": "m", "modle": "typo"}');
    writeFileSync(memory, JSON.stringify({ ...remembered, digests: { [file]: sha256('{"model": "m", "modle": "typo"}') } }));
    const trusted = await readConfigFile(file, "user", env);
    expect(trusted.ok && trusted.value?.warnings).toEqual([]);
    writeFileSync(memory, JSON.stringify({ ...remembered, schema: "another", digests: { [file]: sha256('{"model": "m", "modle": "typo"}') } }));
    const other = await readConfigFile(file, "user", env);
    expect(other.ok && other.value?.warnings.join("\n")).toMatch(/modle/);
    writeFileSync(memory, "{ not json");
    const broken = await readConfigFile(file, "user", env);
    expect(broken.ok && broken.value?.warnings.join("\n")).toMatch(/modle/);
  });

  it("keeps no copy of the file's text (an api_key stays in the config file alone), in a file only the user reads", async () => {
    const { env, file, memory } = home('{"api_key": "sk-remembered-secret-123", "model": "m"}');
    expect((await readConfigFile(file, "user", env)).ok).toBe(true);
    expect(readFileSync(memory, "utf8")).not.toContain("sk-remembered-secret-123");
    expect(statSync(memory).mode & 0o077).toBe(0);
  });

  it("without an environment (a caller that names none) nothing is remembered", async () => {
    const { file, memory } = home('{"model": "m"}');
    expect((await readConfigFile(file, "user")).ok).toBe(true);
    expect(existsSync(memory)).toBe(false);
  });
});

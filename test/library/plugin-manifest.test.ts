// An Agent Plugins manifest is checked against awl's schema of the specification's rules (schema/plugins/):
// unknown fields are notices with their line, a known field that breaks the schema is fatal.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readPluginPackage } from "../../src/index.js";
// @ts-expect-error: a script without types
import { VALIDATORS, validatorSource } from "../../scripts/generate-plugin-validators.mjs";
import { tempDir } from "../support/temp-dir.js";

const SCHEMA = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json";

function manifest(value: unknown): string {
  const root = tempDir("awl-manifest-");
  writeFileSync(join(root, "plugin.json"), JSON.stringify(value, null, 2));
  return root;
}

const fault = (value: unknown): string => {
  try {
    readPluginPackage(manifest(value));
  } catch (error) {
    return (error as Error).message;
  }
  return "no error";
};

describe("the plugin.json schema", () => {
  it("ships validators generated from awl's schemas as they are (node scripts/generate-plugin-validators.mjs)", () => {
    for (const validator of VALIDATORS) expect(readFileSync(validator.file, "utf8")).toBe(validatorSource(validator));
    // Each accepts exactly the spec's identifier of its file as `$schema`.
    const schema = (file: string) => JSON.parse(readFileSync(join(import.meta.dirname, "../../schema/plugins", file), "utf8"));
    expect(schema("plugin-manifest.schema.json").properties.$schema.const).toBe(SCHEMA);
    expect(schema("plugin-mcp.schema.json").properties.$schema.const).toBe(SCHEMA.replace("plugin.schema", "mcp.schema"));
  });

  it("reports unknown fields, at the top and in author, with their line, and loads the plugin", () => {
    const pkg = readPluginPackage(manifest({ $schema: SCHEMA, name: "kit", colour: "red", author: { name: "me", twitter: "@me" }, extensions: { "dev.awl": {} } }));
    expect(pkg.name).toBe("kit");
    expect(pkg.notices).toEqual([
      expect.stringMatching(/plugin\.json:4: unknown field "colour" \(Agent Plugins 1\.0 allows \$schema, name, .*extensions\); ignored$/),
      expect.stringMatching(/plugin\.json:7: unknown field "author\.twitter" \(Agent Plugins 1\.0 allows name, email, url\); ignored$/),
    ]);
  });

  it("refuses what the schema forbids, naming the file, the line and the field", () => {
    expect(fault({ name: "kit" })).toMatch(/plugin\.json:1: "\$schema" is missing; write "\$schema": "https/);
    expect(fault({ $schema: SCHEMA })).toMatch(/plugin\.json:1: "name" is missing$/);
    expect(fault({ $schema: "https://agent-plugins.org/schemas/2.0.0/plugin.schema.json", name: "kit" })).toMatch(/plugin\.json:2: "\$schema" is .*awl reads Agent Plugins 1\.0/);
    expect(fault({ $schema: SCHEMA, name: "Kit--x" })).toMatch(/plugin\.json:3: "name" "Kit--x" is not a plugin name/);
    expect(fault({ $schema: SCHEMA, name: "k".repeat(65) })).toMatch(/plugin\.json:3: "name" must be 1 to 64 characters/);
    expect(fault({ $schema: SCHEMA, name: "kit", version: 2 })).toMatch(/plugin\.json:4: "version" must be a string$/);
    expect(fault({ $schema: SCHEMA, name: "kit", keywords: ["a", 1] })).toMatch(/plugin\.json:6: "keywords\.1" must be a string$/);
    expect(fault({ $schema: SCHEMA, name: "kit", author: "me" })).toMatch(/plugin\.json:4: "author" must be an object$/);
    // Client data must be an object per namespace (the spec's extensions rule).
    expect(fault({ $schema: SCHEMA, name: "kit", extensions: { "dev.awl": 1 } })).toMatch(/plugin\.json:5: "extensions\.dev\.awl" must be an object$/);
  });
});

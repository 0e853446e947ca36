// The schema check (is a tool's schema valid JSON Schema?) runs ajv's draft-07 meta-schema validator generated
// ahead of time: it must be what the generator makes from the installed ajv today, and judge like ajv itself.
import { readFileSync } from "node:fs";
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { GENERATED_FILE, metaValidatorSource } from "../../scripts/generate-meta-validator.mjs";
import { AJV_OPTIONS, schemaProblem, validateToolInput } from "../../src/tools/validate-input.js";

const SCHEMAS: unknown[] = [
  { type: "object", properties: { path: { type: "string", description: "A file path" }, n: { type: "integer", minimum: 0 } }, required: ["path"] },
  { type: "object", properties: { a: { type: "strin" } } },
  { type: "object", required: "path" },
  { type: "object", properties: { list: { type: "array", items: { type: "string" }, uniqueItems: true, minItems: -1 } } },
  { type: ["string", "null"], enum: ["a", "a"] },
  { type: "object", additionalProperties: { type: "number" }, patternProperties: { "^x": { type: 5 } } },
  { anyOf: [{ type: "string" }, { type: "number" }], default: 1, examples: [1, 2] },
  { type: "object", properties: { when: { type: "string", format: "date-time" } }, "x-vendor": { anything: true } },
  { $ref: "#/definitions/a", definitions: { a: { type: "boolean" } } },
  { const: { a: [1, 2] }, dependencies: { a: ["b"], c: { required: 7 } } },
  {},
  true,
  false,
  5,
  "object",
  [],
];

describe("schemaProblem", () => {
  it("uses a generated meta-schema validator that is what the generator makes from the installed ajv", () => {
    expect(readFileSync(GENERATED_FILE, "utf8")).toBe(metaValidatorSource(AJV_OPTIONS));
  });

  it("judges every schema as ajv's validateSchema does, in the same words", async () => {
    const ajv = new Ajv.default(AJV_OPTIONS);
    let invalid = 0;
    for (const schema of SCHEMAS) {
      const valid = ajv.validateSchema(schema as object) === true;
      if (!valid) invalid++;
      const expected = valid ? undefined : ajv.errorsText(ajv.errors, { dataVar: "parameters" });
      expect(await schemaProblem(JSON.stringify(schema)), JSON.stringify(schema)).toBe(expected);
    }
    expect(invalid).toBeGreaterThan(5); // the list holds both kinds
    // ajv's validateSchema throws on null; the check says what is wrong.
    expect(await schemaProblem("null")).toBe("parameters must be object,boolean");
  });

  it("leaves a schema that names its dialect to ajv, and refuses one whose meta-schema ajv does not have", async () => {
    expect(await schemaProblem(JSON.stringify({ $schema: "http://json-schema.org/draft-07/schema#", type: "object" }))).toBeUndefined();
    expect(await schemaProblem(JSON.stringify({ $schema: "http://json-schema.org/draft-07/schema#", type: "objec" }))).toMatch(/^parameters\/type must be/);
    expect(await schemaProblem(JSON.stringify({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" }))).toBe(
      'awl cannot check it: no schema with key or ref "https://json-schema.org/draft/2020-12/schema"',
    );
  });

  it("still validates tool input with ajv", async () => {
    const schema = JSON.stringify({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] });
    expect(await validateToolInput("t", schema, { n: 1 })).toEqual({ ok: true });
    expect(await validateToolInput("t", schema, {})).toMatchObject({ ok: false, message: expect.stringContaining("must have required property 'n'") });
  });
});

// The tool input check built without ajv (plain schemas): every verdict and message, in order, as ajv's with awl's
// options, over the std tools' own schemas and thousands of generated schema/input pairs; anything else goes to ajv.
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { plainCheck } from "../../src/tools/plain-validator.js";
import { AJV_OPTIONS } from "../../src/tools/validate-input.js";

const ajv = new Ajv.default(AJV_OPTIONS);

function ajvProblems(schema: object, data: unknown): { instancePath: string; message: string }[] {
  const validate = ajv.compile(schema);
  return validate(data) ? [] : (validate.errors ?? []).map((e) => ({ instancePath: e.instancePath, message: e.message ?? "" }));
}

/** A small deterministic generator (the same cases on every run). */
function random(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s % n;
  };
}

const SCALARS = ["string", "number", "integer", "boolean", "null"] as const;

function schemaOf(pick: (n: number) => number, depth: number): Record<string, unknown> {
  const schema: Record<string, unknown> = {};
  const kind = pick(depth > 1 ? 5 : 8);
  if (pick(6) === 0) schema.description = "d";
  if (kind < 5) {
    const type = SCALARS[kind]!;
    schema.type = pick(5) === 0 ? [type, SCALARS[pick(5)]!] : type;
    if (type === "number" || type === "integer") {
      if (pick(2)) schema.minimum = pick(5) - 1;
      if (pick(3) === 0) schema.maximum = pick(10) + 2;
      if (pick(5) === 0) schema.exclusiveMinimum = 0;
      if (pick(6) === 0) schema.exclusiveMaximum = 9;
    }
    if (type === "string") {
      if (pick(3) === 0) schema.minLength = pick(3);
      if (pick(3) === 0) schema.maxLength = pick(4) + 1;
      if (pick(3) === 0) schema.enum = ["a", "bb", "ccc"].slice(0, pick(3) + 1);
    }
    if (pick(8) === 0) schema.enum = [1, "a", true, null];
    if (pick(10) === 0) delete schema.type;
  } else if (kind < 7) {
    schema.type = "object";
    const properties: Record<string, unknown> = {};
    for (const name of ["a", "b/c", "d~e"].slice(0, pick(3) + 1)) properties[name] = schemaOf(pick, depth + 1);
    schema.properties = properties;
    if (pick(2)) schema.required = Object.keys(properties).filter(() => pick(2) === 0);
    if (pick(3) === 0) schema.additionalProperties = pick(2) ? false : schemaOf(pick, depth + 2);
    if (pick(8) === 0) schema.minimum = 3; // a number keyword on an object schema: ajv applies it to numbers
  } else {
    schema.type = "array";
    schema.items = schemaOf(pick, depth + 1);
    if (pick(3) === 0) schema.minItems = pick(3);
    if (pick(3) === 0) schema.maxItems = pick(3) + 1;
  }
  return schema;
}

function dataOf(pick: (n: number) => number, depth: number): unknown {
  switch (pick(depth > 2 ? 7 : 9)) {
    case 0:
      return ["", "a", "bb", "ccc", "dddd", "😀😀"][pick(6)];
    case 1:
      return pick(12) - 2;
    case 2:
      return pick(10) / 4 - 1;
    case 3:
      return pick(2) === 0;
    case 4:
      return null;
    case 5:
      return "x";
    case 6:
      return 5;
    case 7: {
      const object: Record<string, unknown> = {};
      for (const name of ["a", "b/c", "d~e", "z"]) if (pick(2)) object[name] = dataOf(pick, depth + 1);
      return object;
    }
    default:
      return Array.from({ length: pick(4) }, () => dataOf(pick, depth + 1));
  }
}

const STD_SCHEMAS = [
  { type: "object", properties: { pattern: { type: "string", description: "Regular expression" }, context: { type: "integer", minimum: 0 }, limit: { type: "integer", minimum: 1 }, ignore_case: { type: "boolean" } }, required: ["pattern"] },
  { type: "object", properties: { path: { type: "string" }, sort: { type: "string", enum: ["mtime", "path"] }, limit: { type: "integer", minimum: 1, maximum: 5000 } } },
  { type: "object", properties: { command: { type: "string" }, timeout: { type: "integer", minimum: 1 } }, required: ["command"] },
];

describe("plainCheck", () => {
  it("judges the std tools' schemas as ajv does", () => {
    const inputs = [{}, { pattern: "x" }, { pattern: 5 }, { pattern: "x", limit: 0 }, { pattern: "x", limit: 1.5, context: -1 }, { sort: "size" }, { limit: 9999 }, { command: "true", timeout: "5" }, [], "text", null];
    for (const schema of STD_SCHEMAS) {
      const check = plainCheck(schema);
      expect(check).toBeDefined();
      for (const input of inputs) expect(check!(input)).toEqual(ajvProblems(schema, input));
    }
  });

  it("gives ajv's problems, in ajv's order, for generated schemas and inputs", () => {
    const pick = random(9);
    let compared = 0;
    let invalid = 0;
    for (let i = 0; i < 400; i++) {
      const schema = schemaOf(pick, 0);
      const check = plainCheck(schema);
      if (!ajv.validateSchema(schema)) {
        expect(check, JSON.stringify(schema)).toBeUndefined(); // e.g. a type named twice: ajv reports it
        continue;
      }
      expect(check, JSON.stringify(schema)).toBeDefined();
      for (let j = 0; j < 10; j++) {
        const data = dataOf(pick, 0);
        const expected = ajvProblems(schema, data);
        expect(check!(data), `${JSON.stringify(schema)} with ${JSON.stringify(data)}`).toEqual(expected);
        compared++;
        if (expected.length > 0) invalid++;
      }
    }
    expect(compared).toBeGreaterThan(3500);
    expect(invalid).toBeGreaterThan(1000); // the cases exercise the errors, not just valid inputs
  });

  it("leaves to ajv every schema it does not handle", () => {
    for (const schema of [
      { type: "string", pattern: "^a" },
      { anyOf: [{ type: "string" }] },
      { $ref: "#/definitions/a", definitions: { a: {} } },
      { type: "object", properties: { a: { const: 1 } } },
      { type: "array", items: [{ type: "string" }] },
      { type: "string", enum: [{ a: 1 }] },
      { type: "object", required: "a" },
      { type: "integer", minimum: "1" },
      { type: "strin" },
      { type: "object", "x-vendor": true },
      { type: "object", properties: { a: true } },
      true,
      null,
    ]) {
      expect(plainCheck(schema), JSON.stringify(schema)).toBeUndefined();
    }
  });
});

/**
 * Tool input checks for the plain schemas tools usually declare (objects of strings, numbers, booleans, arrays,
 * enums, bounds), built without ajv: the first call of a run would otherwise wait for ajv's import and its first
 * compile (≈ 50 ms of CPU on a quiet machine) between the model's reply and the tool's start. Same verdicts and
 * the same messages, in the same order, as ajv with `AJV_OPTIONS` (test/tools/plain-validator.test.ts compares
 * them); a schema using anything else gets `undefined`, and ajv checks it.
 */

/** One problem, as ajv words it: where (a JSON pointer into the input) and what. */
export interface Problem {
  instancePath: string;
  message: string;
}

/** Checks one value: its problems, none when it is valid. */
export type PlainCheck = (data: unknown) => Problem[];

type JsonType = "string" | "number" | "integer" | "boolean" | "null" | "array" | "object";
type Group = "number" | "string" | "array" | "object";

const TYPES = new Set<string>(["string", "number", "integer", "boolean", "null", "array", "object"]);
/** Keywords that change nothing about validity (ajv validates no formats with AJV_OPTIONS). */
const ANNOTATIONS = new Set(["description", "title", "default", "examples", "$comment", "format", "deprecated", "readOnly", "writeOnly"]);
/** The keywords of each type's group, in the order ajv evaluates them (its draft-07 vocabularies). */
const GROUPS: readonly { group: Group; keywords: readonly string[] }[] = [
  { group: "number", keywords: ["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"] },
  { group: "string", keywords: ["maxLength", "minLength"] },
  { group: "array", keywords: ["maxItems", "minItems", "items"] },
  { group: "object", keywords: ["required", "additionalProperties", "properties"] },
];
const KNOWN = new Set(["type", "enum", ...GROUPS.flatMap((g) => g.keywords)]);

type Node = Record<string, unknown>;

/** A check for `schema`, or undefined when it uses a keyword or a form this module does not handle. */
export function plainCheck(schema: unknown): PlainCheck | undefined {
  const check = compileNode(schema);
  return check && ((data) => {
    const problems: Problem[] = [];
    check(data, "", problems);
    return problems;
  });
}

type NodeCheck = (data: unknown, path: string, out: Problem[]) => void;

function compileNode(schema: unknown): NodeCheck | undefined {
  if (!isObject(schema)) return undefined;
  for (const key of Object.keys(schema)) if (!KNOWN.has(key) && !ANNOTATIONS.has(key)) return undefined;
  const types = typesOf(schema.type);
  if (!types) return undefined;
  const enumCheck = enumOf(schema.enum);
  if (enumCheck === null) return undefined;
  const groups: { group: Group; run: NodeCheck }[] = [];
  for (const { group, keywords } of GROUPS) {
    if (!keywords.some((k) => k in schema)) continue;
    const run = compileGroup(group, schema);
    if (!run) return undefined;
    groups.push({ group, run });
  }
  // Like ajv: the type is checked first, unless the schema has keywords of its one type, which then say it.
  const typeFirst = types.length > 0 && !(types.length === 1 && groups.some((g) => g.group === types[0]));
  const typeError = `must be ${types.join(",")}`;
  return (data, path, out) => {
    if (typeFirst && !types.some((t) => hasType(data, t))) out.push({ instancePath: path, message: typeError });
    enumCheck?.(data, path, out);
    for (const { group, run } of groups) {
      if (hasType(data, group)) run(data, path, out);
      else if (!typeFirst && types[0] === group) out.push({ instancePath: path, message: typeError });
    }
  };
}

function typesOf(type: unknown): JsonType[] | undefined {
  if (type === undefined) return [];
  const list = Array.isArray(type) ? type : [type];
  if (list.length === 0 || new Set(list).size < list.length || !list.every((t) => typeof t === "string" && TYPES.has(t))) return undefined;
  return list as JsonType[];
}

/** The enum's check; undefined without one, null for one this module does not handle (objects, arrays). */
function enumOf(values: unknown): NodeCheck | undefined | null {
  if (values === undefined) return undefined;
  if (!Array.isArray(values) || values.length === 0 || !values.every((v) => v === null || ["string", "number", "boolean"].includes(typeof v))) return null;
  return (data, path, out) => {
    if (!values.includes(data)) out.push({ instancePath: path, message: "must be equal to one of the allowed values" });
  };
}

function compileGroup(group: Group, schema: Node): NodeCheck | undefined {
  switch (group) {
    case "number":
      return compileBounds(schema, [
        ["maximum", (d, n) => d <= n, "<="],
        ["minimum", (d, n) => d >= n, ">="],
        ["exclusiveMaximum", (d, n) => d < n, "<"],
        ["exclusiveMinimum", (d, n) => d > n, ">"],
      ]);
    case "string":
      return compileCounts(schema, "maxLength", "minLength", "characters", (d) => codePoints(d as string));
    case "array":
      return compileArray(schema);
    case "object":
      return compileObject(schema);
  }
}

function compileBounds(schema: Node, rules: [string, (data: number, limit: number) => boolean, string][]): NodeCheck | undefined {
  const checks: NodeCheck[] = [];
  for (const [keyword, holds, op] of rules) {
    const limit = schema[keyword];
    if (limit === undefined) continue;
    if (typeof limit !== "number" || !Number.isFinite(limit)) return undefined;
    checks.push((data, path, out) => {
      if (!holds(data as number, limit)) out.push({ instancePath: path, message: `must be ${op} ${limit}` });
    });
  }
  return all(checks);
}

function compileCounts(schema: Node, maxKey: string, minKey: string, unit: string, count: (data: unknown) => number): NodeCheck | undefined {
  const checks: NodeCheck[] = [];
  for (const [keyword, word] of [[maxKey, "more"], [minKey, "fewer"]] as const) {
    const limit = schema[keyword];
    if (limit === undefined) continue;
    if (!Number.isInteger(limit) || (limit as number) < 0) return undefined;
    const tooMany = keyword === maxKey ? (n: number) => n > (limit as number) : (n: number) => n < (limit as number);
    checks.push((data, path, out) => {
      if (tooMany(count(data))) out.push({ instancePath: path, message: `must NOT have ${word} than ${limit as number} ${unit}` });
    });
  }
  return all(checks);
}

function compileArray(schema: Node): NodeCheck | undefined {
  const counts = compileCounts(schema, "maxItems", "minItems", "items", (d) => (d as unknown[]).length);
  if (!counts) return undefined;
  if (schema.items === undefined) return counts;
  const item = compileNode(schema.items);
  if (!item) return undefined;
  return (data, path, out) => {
    counts(data, path, out);
    (data as unknown[]).forEach((value, i) => item(value, `${path}/${i}`, out));
  };
}

function compileObject(schema: Node): NodeCheck | undefined {
  const { required = [], properties = {}, additionalProperties } = schema;
  if (!Array.isArray(required) || !required.every((r) => typeof r === "string")) return undefined;
  if (!isObject(properties)) return undefined;
  const props: [string, NodeCheck][] = [];
  for (const [name, sub] of Object.entries(properties)) {
    const check = compileNode(sub);
    if (!check) return undefined;
    props.push([name, check]);
  }
  let extra: NodeCheck | "refused" | undefined;
  if (additionalProperties === false) extra = "refused";
  else if (additionalProperties !== undefined && additionalProperties !== true) {
    extra = compileNode(additionalProperties);
    if (!extra) return undefined;
  }
  const declared = new Set(Object.keys(properties));
  return (data, path, out) => {
    const object = data as Node;
    for (const name of required as string[]) {
      if (object[name] === undefined) out.push({ instancePath: path, message: `must have required property '${name}'` });
    }
    if (extra) {
      for (const key of Object.keys(object)) {
        if (declared.has(key)) continue;
        if (extra === "refused") out.push({ instancePath: path, message: "must NOT have additional properties" });
        else extra(object[key], `${path}/${pointer(key)}`, out);
      }
    }
    for (const [name, check] of props) if (object[name] !== undefined) check(object[name], `${path}/${pointer(name)}`, out);
  };
}

function all(checks: NodeCheck[]): NodeCheck {
  return (data, path, out) => {
    for (const check of checks) check(data, path, out);
  };
}

/** JSON's types as ajv tells them apart (`strict: false`: any number counts as a number). */
function hasType(data: unknown, type: JsonType): boolean {
  switch (type) {
    case "null":
      return data === null;
    case "array":
      return Array.isArray(data);
    case "object":
      return isObject(data);
    case "integer":
      return typeof data === "number" && Number.isInteger(data);
    default:
      return typeof data === type;
  }
}

function isObject(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A string's length in code points, as ajv counts it for minLength and maxLength. */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** A property name as a JSON pointer segment. */
function pointer(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}

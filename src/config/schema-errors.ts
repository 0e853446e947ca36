/**
 * ajv's errors for a config file, in words: which key (as a JSON Pointer, for its line), what was expected
 * (from the schema node the error points into: its `title`, else its type, range or choices) and what was there.
 * The schema is read from the package only when a file has a problem.
 */
import { readFileSync } from "node:fs";
import { packagePath } from "../util/package-path.js";

/** The fields of an ajv error this module reads. */
export interface SchemaError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
}

export interface ConfigProblem {
  /** The member the problem is about, e.g. `/providers/openai/model`. */
  pointer: string;
  text: string;
  /** An unknown key (a warning); anything else is an error. */
  unknownKey: boolean;
}

type SchemaNode = Record<string, unknown>;

/** The config schema shipped in the package (schema/). */
export const CONFIG_SCHEMA_FILE = packagePath("schema", "config.schema.json");
let schema: SchemaNode | undefined;
export function configSchema(): SchemaNode {
  return (schema ??= JSON.parse(readFileSync(CONFIG_SCHEMA_FILE, "utf8")) as SchemaNode);
}

/**
 * One problem per key. The schema node a key's value must match is found by walking the key's path through
 * the schema (ajv's `schemaPath` is relative to a referenced definition, so it cannot be followed from the root).
 */
export function describeSchemaError(errors: readonly SchemaError[], values: unknown): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.schemaPath.includes("/propertyNames/")) continue; // reported by the propertyNames error itself
    if (error.keyword === "additionalProperties") {
      const name = String(error.params.additionalProperty);
      const pointer = `${error.instancePath}/${escape(name)}`;
      const known = Object.keys((nodeFor(error.instancePath).properties as SchemaNode | undefined) ?? {}).filter((k) => k !== "$schema");
      const near = closest(name, known);
      const hint = near ? `did you mean "${keyName(`${error.instancePath}/${escape(near)}`)}"?` : `known keys here: ${known.join(", ")}`;
      problems.push({ pointer, text: `unknown key "${keyName(pointer)}" (${hint})`, unknownKey: true });
      continue;
    }
    const name = error.keyword === "propertyNames" ? String(error.params.propertyName) : undefined;
    const pointer = name === undefined ? error.instancePath : `${error.instancePath}/${escape(name)}`;
    if (seen.has(pointer)) continue;
    seen.add(pointer);
    if (name !== undefined) {
      const names = (nodeFor(error.instancePath).propertyNames as SchemaNode | undefined) ?? {};
      problems.push({ pointer, text: `key "${keyName(error.instancePath)}" has an entry "${name}"; expected ${expected(names)}`, unknownKey: false });
    } else if (error.keyword === "required") {
      problems.push({ pointer, text: `key "${keyName(pointer)}" needs "${String(error.params.missingProperty)}"`, unknownKey: false });
    } else {
      problems.push({ pointer, text: `key "${keyName(pointer)}" expects ${expected(nodeFor(pointer))}, got ${shown(valueAt(values, pointer))}`, unknownKey: false });
    }
  }
  return problems;
}

/** The schema node for the value at a JSON Pointer: through properties, additionalProperties, items and $ref. */
function nodeFor(pointer: string): SchemaNode {
  let node = deref(configSchema());
  for (const part of pointer.split("/").slice(1).map(unescape)) {
    const properties = node.properties as Record<string, SchemaNode> | undefined;
    const next = properties?.[part] ?? (typeof node.additionalProperties === "object" ? node.additionalProperties : undefined) ?? (typeof node.items === "object" ? node.items : undefined);
    node = deref((next as SchemaNode | undefined) ?? {});
  }
  return node;
}

function deref(node: SchemaNode): SchemaNode {
  return typeof node.$ref === "string" ? { ...deref(nodeAt(node.$ref)), ...Object.fromEntries(Object.entries(node).filter(([k]) => k !== "$ref")) } : node;
}

/** What a schema node accepts, in words. */
export function expected(node: SchemaNode): string {
  if (typeof node.$ref === "string") return expected(deref(node));
  if (typeof node.title === "string") return node.title;
  const choices = (node.oneOf ?? node.anyOf) as SchemaNode[] | undefined;
  if (choices) return choices.map(expected).join(" or ");
  if (Array.isArray(node.enum)) return node.enum.length === 1 ? JSON.stringify(node.enum[0]) : `one of ${node.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  if (Array.isArray(node.type)) return node.type.map((type) => expected({ ...node, type })).join(" or ");
  const min = node.minimum as number | undefined;
  const max = node.maximum as number | undefined;
  switch (node.type) {
    case "integer":
    case "number": {
      const what = node.type === "integer" ? "a whole number" : "a number";
      if (min !== undefined && max !== undefined) return `${what} from ${min} to ${max}`;
      if (min !== undefined) return `${what} ≥ ${min}`;
      if (max !== undefined) return `${what} ≤ ${max}`;
      return what;
    }
    case "string":
      return node.minLength || node.pattern ? "a non-empty string" : "a string";
    case "boolean":
      return "true or false";
    case "array":
      return node.items ? `a list of ${expected(node.items as SchemaNode).replace(/^an? /, "")}s` : "a list";
    case "object":
      return "an object";
    default:
      return "a value the schema allows";
  }
}

function nodeAt(schemaPath: string): SchemaNode {
  let node: unknown = configSchema();
  for (const part of schemaPath.replace(/^#\/?/, "").split("/").filter(Boolean)) {
    node = (node as Record<string, unknown> | undefined)?.[unescape(part)];
  }
  return (node as SchemaNode | undefined) ?? {};
}

function valueAt(values: unknown, pointer: string): unknown {
  let value = values;
  for (const part of pointer.split("/").slice(1)) value = (value as Record<string, unknown> | undefined)?.[unescape(part)];
  return value;
}

/** `/providers/openai/model` → `providers.openai.model`: how docs/config.md names keys. */
export function keyName(pointer: string): string {
  return pointer.split("/").slice(1).map(unescape).join(".");
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function escape(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
function unescape(part: string): string {
  return part.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** The known key nearest a typo (at most 2 edits), or undefined. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

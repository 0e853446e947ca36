/**
 * Validates a tool call's input against the tool's JSON Schema (SPEC §5), and checks that a schema is valid
 * JSON Schema at all. A plain schema (most tools') is checked without ajv (plain-validator.ts); ajv is loaded on
 * the first use of any other, never on the start-up path, and each schema text is compiled once. The check of a schema itself uses ajv's draft-07 meta-schema validator generated ahead of time
 * (meta-validator.generated.ts): a start-up with a cold registration cache checks every schema, and would
 * otherwise pay for importing ajv and compiling the meta-schema (≈ 70 ms of CPU) before its first request.
 */
import type { ValidateFunction } from "ajv";
import { plainCheck, type PlainCheck } from "./plain-validator.js";

type Check = { ok: true } | { ok: false; message: string };

/** The part of ajv used here. */
interface AjvInstance {
  compile(schema: object): ValidateFunction;
  validateSchema(schema: unknown): boolean | Promise<unknown>;
  errors?: ValidateFunction["errors"];
  errorsText(errors: ValidateFunction["errors"], options: { dataVar: string }): string;
}

/** ajv's options; scripts/generate-meta-validator.mjs generates the meta-schema check with the same ones. */
export const AJV_OPTIONS = { allErrors: true, strict: false, validateFormats: false } as const;

let ajvInstance: Promise<AjvInstance> | undefined;
const compiled = new Map<string, PlainCheck | Error>();

async function ajv(): Promise<AjvInstance> {
  ajvInstance ??= import("ajv").then((mod) => {
    const Ajv = (mod as unknown as { default: new (opts: object) => AjvInstance }).default;
    // strict: false — model-facing schemas often carry keywords ajv does not know (e.g. "examples" variants).
    return new Ajv(AJV_OPTIONS);
  });
  return ajvInstance;
}

/** The check of `schemaText` (without ajv where the schema is plain), or the error ajv gave compiling it. */
async function compile(schemaText: string): Promise<PlainCheck | Error> {
  let check = compiled.get(schemaText);
  if (check === undefined) {
    try {
      const schema = JSON.parse(schemaText) as object;
      check = plainCheck(schema) ?? ajvCheck((await ajv()).compile(schema));
    } catch (e) {
      check = e instanceof Error ? e : new Error(String(e));
    }
    compiled.set(schemaText, check);
  }
  return check;
}

function ajvCheck(validate: ValidateFunction): PlainCheck {
  return (data) => (validate(data) ? [] : (validate.errors ?? []).map((e) => ({ instancePath: e.instancePath, message: e.message ?? "is invalid" })));
}

type MetaValidator = ((schema: unknown) => boolean) & { errors?: ValidateFunction["errors"] };
let metaValidator: Promise<MetaValidator> | undefined;

function draft07Validator(): Promise<MetaValidator> {
  metaValidator ??= import("./meta-validator.generated.js").then((mod) => mod.validate as MetaValidator);
  return metaValidator;
}

/** Starts loading the schema check now, without waiting: schemas to check are coming (while the Lua workers start). */
export function preloadSchemaChecker(): void {
  void draft07Validator();
}

/**
 * Why `schemaText` is not valid JSON Schema (checked against the meta-schema, as a provider does), or
 * undefined when it is. Much cheaper than compiling it: start-up with a cold registration cache pays this.
 */
export async function schemaProblem(schemaText: string): Promise<string | undefined> {
  const schema: unknown = JSON.parse(schemaText);
  if (typeof schema === "object" && schema !== null && "$schema" in schema) return dialectSchemaProblem(schema);
  const validate = await draft07Validator();
  if (validate(schema)) return undefined;
  // As ajv's errorsText(errors, { dataVar: "parameters" }) words it.
  return (validate.errors ?? []).map((e) => `parameters${e.instancePath} ${e.message ?? "is invalid"}`).join(", ");
}

/** A schema that names its dialect (`$schema`) is checked by ajv itself, against that meta-schema if ajv has it. */
async function dialectSchemaProblem(schema: object): Promise<string | undefined> {
  const instance = await ajv();
  try {
    if (instance.validateSchema(schema) === true) return undefined;
  } catch (e) {
    return `awl cannot check it: ${e instanceof Error ? e.message : String(e)}`;
  }
  return instance.errorsText(instance.errors, { dataVar: "parameters" });
}

/** Checks `input` (already parsed) against `schemaText`. A schema ajv cannot compile is reported, not thrown. */
export async function validateToolInput(toolName: string, schemaText: string, input: unknown): Promise<Check> {
  const check = await compile(schemaText);
  if (check instanceof Error) {
    return { ok: false, message: `the tool "${toolName}" has a schema awl cannot use (${check.message}); the tool's extension needs fixing` };
  }
  const found = check(input);
  if (found.length === 0) return { ok: true };
  const problems = found.map((e) => `${e.instancePath || "(input)"} ${e.message}`);
  return { ok: false, message: `invalid input for tool "${toolName}": ${problems.join("; ")}. Fix the arguments and call it again.` };
}

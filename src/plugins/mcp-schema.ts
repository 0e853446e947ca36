/**
 * An Agent Plugins `mcp.json` checked against awl's JSON Schema of the spec's rules (schema/plugins/plugin-mcp.schema.json,
 * precompiled by scripts/generate-plugin-validators.mjs), in words naming the file, the line and the
 * field. The file's top level and each server are checked apart, as the spec's failure boundaries ask (§7.2.2): a
 * fault of the top level turns the plugin's MCP servers off, a fault of a server (an unknown field included) skips
 * that server only. Nothing else of the plugin fails with them.
 */
import { MCP_SCHEMA_1_0 } from "./package-format.js";
import { sse, stdio, streamableHttp, validate } from "./mcp-validator.generated.js";

/** One error of a generated validator (ajv's shape, without messages). */
interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

type Validator = ((value: unknown) => boolean) & { errors?: SchemaError[] | null };

/** `file:line` of a JSON pointer into the file. */
export type At = (pointer: string) => string;

/** Each server type and its schema variant's fields. */
const VARIANTS: Record<string, { check: Validator; fields: string }> = {
  stdio: { check: stdio as Validator, fields: "type, command, args, env, cwd" },
  "streamable-http": { check: streamableHttp as Validator, fields: "type, url, headers" },
  sse: { check: sse as Validator, fields: "type, url, headers" },
};

/** The faults of `value`'s top level (`$schema`, `mcpServers`, nothing else), each `file:line: "field" ...`. */
export function mcpFileFaults(value: Record<string, unknown>, at: At): string[] {
  const check = validate as Validator;
  if (check(value)) return [];
  // The servers' own errors are the servers' (mcpServerFaults).
  const top = (check.errors ?? []).filter((e) => e.instancePath === "" || e.instancePath === "/$schema" || e.instancePath === "/mcpServers");
  return top.map((error) => {
    const where = at(error.instancePath);
    switch (error.keyword) {
      case "required":
        return `${where}: "${String(error.params.missingProperty)}" is missing`;
      case "additionalProperties": {
        const key = String(error.params.additionalProperty);
        return `${at(`/${escape(key)}`)}: "${key}" is not a field of mcp.json ($schema, mcpServers)`;
      }
      case "const":
        return `${where}: "$schema" must be "${MCP_SCHEMA_1_0}"`;
      case "type":
        return `${where}: "mcpServers" must be an object of named servers`;
      default:
        return `${where}: ${field(error.instancePath)} does not match the Agent Plugins 1.0 mcp.json schema (${error.keyword})`;
    }
  });
}

/** The faults of the server `name` (at `/mcpServers/name`), each `file:line: "field" ...`; none when it is valid. */
export function mcpServerFaults(name: string, entry: unknown, at: At): string[] {
  const pointer = `/mcpServers/${escape(name)}`;
  const type = typeof entry === "object" && entry !== null && !Array.isArray(entry) ? (entry as Record<string, unknown>).type : undefined;
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return [`${at(pointer)}: ${field(pointer)} must be an object`];
  const variant = typeof type === "string" ? VARIANTS[type] : undefined;
  if (!variant) return [`${at(`${pointer}/type`)}: ${field(`${pointer}/type`)} is ${JSON.stringify(type)}; use "stdio", "streamable-http" or "sse"`];
  if (variant.check(entry)) return [];
  const faults: string[] = [];
  for (const error of variant.check.errors ?? []) {
    const path = `${pointer}${error.instancePath}`;
    const where = at(path);
    switch (error.keyword) {
      case "additionalProperties": {
        const key = String(error.params.additionalProperty);
        faults.push(`${at(`${path}/${escape(key)}`)}: ${field(`${path}/${escape(key)}`)} is not a field of a ${type} server (${variant.fields})`);
        break;
      }
      case "required":
        faults.push(`${where}: ${field(`${path}/${escape(String(error.params.missingProperty))}`)} is missing`);
        break;
      case "type":
        faults.push(`${where}: ${field(path)} must be ${error.params.type === "array" ? "a list" : `a${error.params.type === "object" ? "n" : ""} ${String(error.params.type)}`}`);
        break;
      case "minLength":
        faults.push(`${where}: ${field(path)} must not be empty`);
        break;
      case "propertyNames":
        faults.push(`${where}: ${field(path)} sets ${String(error.params.propertyName)}; awl sets PLUGIN_ROOT and PLUGIN_DATA itself`);
        break;
      case "not":
        break; // said by its propertyNames error
      case "pattern":
        faults.push(`${where}: ${field(path)} must start with ./, \${PLUGIN_ROOT} or \${PLUGIN_DATA}`);
        break;
      default:
        faults.push(`${where}: ${field(path)} does not match the Agent Plugins 1.0 mcp.json schema (${error.keyword})`);
    }
  }
  return faults;
}

/** A JSON pointer as the dotted field it names: `"mcpServers.odd.args"`. */
function field(pointer: string): string {
  return `"${pointer.slice(1).split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~")).join(".")}"`;
}

function escape(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * The tool registry: every tool the extensions registered, with its owning extension, file and line.
 * Knows nothing of Lua: any runtime hands it plain registrations.
 *
 * Rules (SPEC §4):
 * - names must fit the providers' `^[a-zA-Z0-9_-]{1,64}$`; schemas must be JSON Schema objects (`"type": "object"`);
 * - an extension's tools are set and removed as a unit (hot reload swaps them);
 * - two extensions registering one name is an error naming both. Neither is picked silently: the extension
 *   first in name order (discovery order) keeps the tool, the other's registration is refused and reported;
 * - which extension keeps a name goes by precedence first: a bundled extension's tool (`std.read`'s `read`) is
 *   reserved (AWORG: "you can't replace a built-in"; the user disables the bundled extension to use their own),
 *   then `--extensions-dir`, project and user extensions, in that order (the project's beats the user's);
 * - definitions come sorted by tool name, so the request bytes are the same from run to run.
 */
import type { ToolDefinition } from "./types.js";

/** A tool offered to the model, with where it came from. */
export interface RegisteredTool extends ToolDefinition {
  /** The line of the registering call in `file`. */
  line: number;
  has_render: boolean;
  has_available: boolean;
}

/** One registration as a runtime reports it: a tool whose timeout and flags may be left to the defaults. */
export type ToolRegistration = Omit<RegisteredTool, "timeout_ms" | "has_render" | "has_available" | "kinds"> &
  Partial<Pick<RegisteredTool, "timeout_ms" | "has_render" | "has_available" | "kinds">> & {
    /** Why the runtime found the schema unusable (completes "the schema of tool X …"); the tool is then refused. */
    schema_error?: string;
  };

export type RegistryProblemKind = "invalid_name" | "invalid_schema" | "duplicate_tool" | "reserved_tool";

/** A registration the registry refused. */
export interface RegistryProblem {
  kind: RegistryProblemKind;
  extension: string;
  tool: string;
  file: string;
  line: number;
  /** Says what, where and what to do. */
  message: string;
}

/** Tool names the OpenAI and Anthropic APIs both accept. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export interface ToolRegistryOptions {
  /** Timeout for tools that declare none. */
  defaultTimeoutMs: number;
}

export class ToolRegistry {
  private readonly defaultTimeoutMs: number;
  /** Each extension's accepted-so-far registrations, in registration order. */
  private readonly byExtension = new Map<string, RegisteredTool[]>();
  /** Problems found when an extension's tools were set (bad names or schemas), by extension. */
  private readonly invalid = new Map<string, RegistryProblem[]>();
  /** Each extension's precedence for tool names (lower claims first); the bundled ones' names are reserved. */
  private readonly ranks = new Map<string, { rank: number; bundled: boolean }>();
  private active: { tools: RegisteredTool[]; byName: Map<string, RegisteredTool>; duplicates: RegistryProblem[] } | undefined;

  constructor(options: ToolRegistryOptions) {
    this.defaultTimeoutMs = options.defaultTimeoutMs;
  }

  /**
   * Sets an extension's tools as a unit, replacing whatever it registered before. `rank`: its precedence when two
   * extensions register one tool name (lower wins; default 0, then name order decides); `bundled`: awl's own, whose
   * tool names no other extension can take.
   */
  setExtension(extension: string, registrations: readonly ToolRegistration[], options: { rank?: number; bundled?: boolean } = {}): void {
    const tools: RegisteredTool[] = [];
    const problems: RegistryProblem[] = [];
    for (const registration of registrations) {
      const problem = this.check(extension, registration);
      if (problem) problems.push(problem);
      else tools.push(this.toTool(extension, registration));
    }
    this.byExtension.set(extension, tools);
    this.invalid.set(extension, problems);
    this.ranks.set(extension, { rank: options.bundled ? -1 : (options.rank ?? 0), bundled: options.bundled ?? false });
    this.active = undefined;
  }

  /** Removes an extension's tools (unloaded, or failed to reload with nothing to keep). */
  removeExtension(extension: string): void {
    this.byExtension.delete(extension);
    this.invalid.delete(extension);
    this.ranks.delete(extension);
    this.active = undefined;
  }

  /** Tools to offer the model, sorted by name. The same array until the registry changes. */
  definitions(): readonly RegisteredTool[] {
    return this.resolve().tools;
  }

  get(name: string): RegisteredTool | undefined {
    return this.resolve().byName.get(name);
  }

  /** The active tools of one extension, sorted by name. */
  toolsOf(extension: string): RegisteredTool[] {
    return this.resolve().tools.filter((tool) => tool.extension === extension);
  }

  /** Every refused registration: bad names and schemas, then duplicates; ordered by extension name. */
  problems(): RegistryProblem[] {
    const { duplicates } = this.resolve();
    const out: RegistryProblem[] = [];
    for (const extension of this.extensionNames()) out.push(...(this.invalid.get(extension) ?? []));
    return [...out, ...duplicates];
  }

  /** Problems that belong to one extension (including duplicates it lost). */
  problemsOf(extension: string): RegistryProblem[] {
    return this.problems().filter((problem) => problem.extension === extension);
  }

  private extensionNames(): string[] {
    return [...this.byExtension.keys()].sort(compareCodeUnits);
  }

  /** The order in which extensions claim tool names: bundled first, then by rank, then by name. */
  private claimOrder(): string[] {
    const rank = (name: string) => this.ranks.get(name)?.rank ?? 0;
    return this.extensionNames().sort((a, b) => rank(a) - rank(b) || compareCodeUnits(a, b));
  }

  private resolve(): NonNullable<ToolRegistry["active"]> {
    if (this.active) return this.active;
    const byName = new Map<string, RegisteredTool>();
    const duplicates: RegistryProblem[] = [];
    for (const extension of this.claimOrder()) {
      for (const tool of this.byExtension.get(extension) ?? []) {
        const winner = byName.get(tool.name);
        if (!winner) {
          byName.set(tool.name, tool);
          continue;
        }
        if (this.ranks.get(winner.extension)?.bundled && !this.ranks.get(extension)?.bundled) {
          const message =
            `tool "${tool.name}" of extension "${extension}" (${where(tool)}) is refused: "${tool.name}" belongs to the bundled ` +
            `extension "${winner.extension}"; rename your tool, or switch the bundled one off with awl extensions disable ${winner.extension}`;
          duplicates.push({ kind: "reserved_tool", extension, tool: tool.name, file: tool.file, line: tool.line, message });
          continue;
        }
        const message =
          winner.extension === extension
            ? `tool "${tool.name}" is registered twice by extension "${extension}" (${where(winner)} and ${where(tool)}); the first is kept, remove the other`
            : `tool "${tool.name}" is registered by two extensions: "${winner.extension}" (${where(winner)}) and "${extension}" (${where(tool)}); "${winner.extension}" keeps it, rename one of them`;
        duplicates.push({ kind: "duplicate_tool", extension, tool: tool.name, file: tool.file, line: tool.line, message });
      }
    }
    const tools = [...byName.values()].sort((a, b) => compareCodeUnits(a.name, b.name));
    this.active = { tools, byName, duplicates };
    return this.active;
  }

  private check(extension: string, registration: ToolRegistration): RegistryProblem | undefined {
    const problem = (kind: RegistryProblemKind, what: string): RegistryProblem => ({
      kind,
      extension,
      tool: registration.name,
      file: registration.file,
      line: registration.line,
      message: `extension "${extension}" (${where(registration)}): ${what}`,
    });
    if (!TOOL_NAME_PATTERN.test(registration.name)) {
      return problem(
        "invalid_name",
        `tool name ${JSON.stringify(registration.name)} is not allowed: use 1 to 64 letters, digits, "_" or "-"`,
      );
    }
    const schemaError = registration.schema_error ?? checkObjectSchema(registration.schema);
    if (schemaError) return problem("invalid_schema", `the schema of tool "${registration.name}" ${schemaError}`);
    return undefined;
  }

  private toTool(extension: string, registration: ToolRegistration): RegisteredTool {
    return {
      name: registration.name,
      description: registration.description,
      schema: registration.schema,
      extension,
      file: registration.file,
      line: registration.line,
      parallel: registration.parallel,
      kinds: registration.kinds && registration.kinds.length > 0 ? [...registration.kinds] : ["exec"],
      timeout_ms: registration.timeout_ms ?? this.defaultTimeoutMs,
      has_render: registration.has_render ?? false,
      has_available: registration.has_available ?? false,
    };
  }
}

/** Why a schema text is not a JSON Schema object, or undefined when it is one. */
export function checkObjectSchema(schema: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(schema);
  } catch (error) {
    return `is not valid JSON (${(error as Error).message})`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return "must be a table (a JSON Schema object such as { type = \"object\", properties = { ... } })";
  }
  const type = (value as { type?: unknown }).type;
  if (type !== "object") {
    return `must have type = "object" (tool input is always an object), not ${type === undefined ? "no type" : JSON.stringify(type)}`;
  }
  const properties = (value as { properties?: unknown }).properties;
  if (properties !== undefined && (typeof properties !== "object" || properties === null || Array.isArray(properties))) {
    return "has properties that are not a table of named schemas";
  }
  return undefined;
}

function where(at: { file: string; line: number }): string {
  return `${at.file}:${at.line}`;
}

/** Plain code-unit order: stable across locales and machines, unlike `localeCompare`. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

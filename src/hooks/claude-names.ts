/**
 * The std tools under Claude Code's names, so command hooks written for Claude Code work unchanged: `tool_name`
 * and `tool_input` on a hook's stdin use them (`Bash` with `command`, `Edit` with `file_path`, `old_string`,
 * `new_string`...), and an `updatedInput` in those names is turned back into awl's. Other tools keep their names.
 */

/** awl's std tool → Claude Code's name, and awl's input field → Claude Code's. */
const TOOLS: Readonly<Record<string, { name: string; fields: Readonly<Record<string, string>> }>> = {
  bash: { name: "Bash", fields: {} },
  read: { name: "Read", fields: { path: "file_path" } },
  write: { name: "Write", fields: { path: "file_path" } },
  edit: { name: "Edit", fields: { path: "file_path" } },
  grep: { name: "Grep", fields: { ignore_case: "-i", context: "-C", limit: "head_limit" } },
  find: { name: "Glob", fields: {} },
  ls: { name: "LS", fields: {} },
};

/** The tool's name as Claude Code's hooks know it. */
export function claudeToolName(name: string): string {
  return TOOLS[name]?.name ?? name;
}

/** The call's input with Claude Code's field names (a std tool's), the rest as it is. */
export function claudeToolInput(name: string, input: unknown): unknown {
  const fields = TOOLS[name]?.fields;
  if (!fields || !isObject(input)) return input;
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [fields[key] ?? key, value]));
}

/** An input in Claude Code's field names (a hook's `updatedInput`) with awl's. */
export function awlToolInput(name: string, input: Record<string, unknown>): Record<string, unknown> {
  const fields = TOOLS[name]?.fields;
  if (!fields) return input;
  const back = Object.fromEntries(Object.entries(fields).map(([awl, claude]) => [claude, awl]));
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [back[key] ?? key, value]));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

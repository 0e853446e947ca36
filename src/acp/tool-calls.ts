/**
 * How an awl tool call looks to an ACP client: its kind (so editors draw their own icon), a title, the files
 * it touches (so they can follow along), and for edits a diff of the file before and after the call.
 */
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { parseToolInput } from "../model/blocks.js";
import type { ToolCall, ToolDefinition } from "../tools/types.js";

/** The std tools by the names models know them by (SPEC §9). */
const KIND_BY_NAME: Record<string, ToolKind> = { read: "read", write: "edit", edit: "edit", bash: "execute", grep: "search", find: "search", ls: "search" };
/** A tool's declared kinds (SPEC §9), most telling first. */
const KIND_BY_DECLARED: [string, ToolKind][] = [["write", "edit"], ["exec", "execute"], ["network", "fetch"], ["read", "read"]];
/** Input fields that name the file(s) a call works on. */
const PATH_FIELDS = ["path", "file_path", "file", "filename"];
/** Input fields worth showing in a title, in order of preference. */
const TITLE_FIELDS = ["command", ...PATH_FIELDS, "pattern", "query", "url"];
/** A file larger than this is not read for a diff. */
const DIFF_MAX_BYTES = 1 << 20;

export interface CallView {
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
  rawInput: unknown;
}

/** What the client is shown when the model asks for `call`. */
export function describeCall(call: Pick<ToolCall, "name" | "input">, definition: ToolDefinition | undefined, cwd: string): CallView {
  const input = parseToolInput(call.input);
  const fields = isRecord(input) ? input : {};
  const shown = TITLE_FIELDS.map((key) => fields[key]).find((value): value is string => typeof value === "string" && value !== "");
  const title = shown === undefined ? call.name : `${call.name} ${oneLine(shown)}`;
  return { title, kind: kindOf(call.name, definition), locations: locationsOf(fields, cwd), rawInput: input ?? call.input };
}

/**
 * The ACP kind: a std tool (or one named like it) by its name, which says more than its declared kinds (grep
 * and read both only read); any other tool by the kinds it declares (none declared is exec).
 */
export function kindOf(name: string, definition: ToolDefinition | undefined): ToolKind {
  const byName = KIND_BY_NAME[name];
  if (byName) return byName;
  const declared = definition?.kinds ?? [];
  return KIND_BY_DECLARED.find(([kind]) => (declared as readonly string[]).includes(kind))?.[1] ?? "other";
}

function locationsOf(fields: Record<string, unknown>, cwd: string): ToolCallLocation[] {
  const line = [fields.offset, fields.line].find((v): v is number => Number.isInteger(v) && (v as number) > 0);
  const paths = PATH_FIELDS.map((key) => fields[key]).filter((value): value is string => typeof value === "string" && value !== "");
  if (Array.isArray(fields.paths)) paths.push(...fields.paths.filter((p): p is string => typeof p === "string"));
  return paths.map((path) => ({ path: isAbsolute(path) ? path : resolve(cwd, path), ...(line !== undefined && { line }) }));
}

/** The text of the file an edit is about to change (`null`: it does not exist yet), or undefined when no diff is made. */
export function textBeforeEdit(view: CallView): string | null | undefined {
  if (view.kind !== "edit" || view.locations.length !== 1) return undefined;
  return readSmallText(view.locations[0]!.path);
}

/** Reads a text file for a diff: `null` when absent, undefined when too large or unreadable. */
export function readSmallText(path: string): string | null | undefined {
  try {
    if (statSync(path).size > DIFF_MAX_BYTES) return undefined;
    return readFileSync(path, "utf8");
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A plugin's JSON files (its manifest, `mcp.json`, `hooks.json`), read with `file:line` for every fault. */
import { readFileSync } from "node:fs";
import { jsonErrorOffset, memberPositions, positionOf } from "../config/json-position.js";

/** A package awl cannot read: `message` reads `file:line: field: what is wrong`. */
export class PluginFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PluginFormatError";
  }
}

/** A JSON file that must hold an object, with `at(pointer)` giving `file:line` of a member. */
export function readJsonObject(file: string): { value: Record<string, unknown>; text: string; at: (pointer: string) => string } {
  let text: string;
  try {
    text = readFileSync(file, "utf8").replace(/^\uFEFF/, "");
  } catch (error) {
    throw new PluginFormatError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const { line, column } = positionOf(text, Math.max(0, jsonErrorOffset(text)));
    throw new PluginFormatError(`${file}:${line}:${column}: not valid JSON`);
  }
  if (!isObject(value)) throw new PluginFormatError(`${file}:1: must be a JSON object`);
  let positions: Map<string, { line: number }> | undefined;
  const at = (pointer: string): string => {
    positions ??= memberPositions(text);
    return `${file}:${positions.get(pointer)?.line ?? 1}`;
  };
  return { value, text, at };
}

/** Whether `value` is a JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

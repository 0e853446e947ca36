/**
 * JSON text spliced into a request as it is: tool schemas (ToolSpec.schema, SPEC §3 rule 8) and the
 * model's own tool inputs. Re-serialising them would round large numbers and could reorder nothing but
 * still cost a parse; splicing keeps the bytes, so the same history gives the same request and the prompt
 * cache keeps hitting.
 */
export class RawJson {
  /** `text` must be one complete JSON value; callers check that before wrapping. */
  constructor(readonly text: string) {}
}

/** `JSON.stringify` for plain data that may hold {@link RawJson} values; `undefined` members are left out. */
export function stringifyWithRaw(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + stringifyWithRaw(value[i]);
    return out + "]";
  }
  if (typeof value === "object" && value !== null) {
    let out = "{";
    let first = true;
    for (const key of Object.keys(value)) {
      const member = (value as Record<string, unknown>)[key];
      if (member === undefined) continue;
      out += (first ? "" : ",") + JSON.stringify(key) + ":" + stringifyWithRaw(member);
      first = false;
    }
    return out + "}";
  }
  return JSON.stringify(value);
}

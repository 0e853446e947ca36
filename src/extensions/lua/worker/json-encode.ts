/**
 * JSON text of a Lua value, byte for byte as runtime/json.lua's encoder writes it, made here through the C API so
 * that no Lua instruction runs. An extension's load encodes its tools' schemas and its registration list; in Lua
 * that is most of the load's instructions (≈ 6 000 of 6 500 for two small tools), and the Lua VM's main loop,
 * charged per instruction by V8's tiering budget, got recompiled by TurboFan in every cold start with many
 * extensions (docs/benchmarks.md, "The cold start without the wasm tier-up").
 *
 * Only plain data is encoded here: anything else (a function, a cycle, a table with a metatable other than
 * json.array's, json.object's or json.null's, a string that is not UTF-8, a float key, keys that clash, deep
 * nesting, the few floats whose digits are not the shortest, see floatText) gives `undefined`, and json.lua
 * encodes the value itself, with its own errors and replacements.
 */
import { LUA_TBOOLEAN, LUA_TNIL, LUA_TNUMBER, LUA_TSTRING, LUA_TTABLE, type LuaC } from "./lua-c.js";

/** The addresses (lua_topointer) of json.lua's `ARRAY` and `OBJECT` metatables and of its `null` sentinel. */
export interface JsonMarks {
  array: number;
  object: number;
  null: number;
}

/** Deeper than this, json.lua decides (its own recursion ends in Lua's "stack overflow" error). */
const MAX_DEPTH = 100;
/** JSON Schema keys whose empty table is `[]` (json.lua's ARRAY_KEYWORDS). */
const ARRAY_KEYWORDS = new Set(["required", "enum", "type", "allOf", "anyOf", "oneOf", "prefixItems", "examples"]);
// ignoreBOM: a leading U+FEFF is part of the string, as in Lua
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Lua interns strings up to this many bytes (LUAI_MAXSHORTLEN): those are the ones that repeat. */
const SHORT_STRING = 40;
/** Thrown inside the walk: the value is not plain data, json.lua encodes it. */
const NOT_PLAIN = Symbol("not plain data");

/** A Lua string's text and its JSON form. */
interface Text {
  text: string;
  json: string;
}

/** The JSON text of the value at `idx` of `L`'s stack, or undefined when json.lua must encode it. Leaves the stack as it was. */
export function encodeJson(c: LuaC, L: number, idx: number, marks: JsonMarks): string | undefined {
  const top = c.m._lua_gettop(L);
  try {
    return new Walk(c, L, marks).value(c.m._lua_absindex(L, idx), undefined, 0);
  } catch (err) {
    if (err !== NOT_PLAIN) throw err;
    return undefined;
  } finally {
    c.m._lua_settop(L, top);
  }
}

class Walk {
  /** The tables being encoded, from the outermost in (a table inside itself is json.lua's error). */
  private readonly open = new Set<number>();
  /** Short strings met so far by their address (keys repeat; nothing is collected while the walk runs). */
  private readonly texts = new Map<number, Text>();

  constructor(
    private readonly c: LuaC,
    private readonly L: number,
    private readonly marks: JsonMarks,
  ) {}

  /** `key`: the string key the value is under (its empty table is `[]` under a JSON Schema array keyword). */
  value(idx: number, key: string | undefined, depth: number): string {
    const { m } = this.c;
    switch (m._lua_type(this.L, idx)) {
      case LUA_TNIL:
        return "null";
      case LUA_TBOOLEAN:
        return m._lua_toboolean(this.L, idx) ? "true" : "false";
      case LUA_TNUMBER:
        return m._lua_isinteger(this.L, idx) ? this.integer(idx) : floatText(m._lua_tonumberx(this.L, idx, 0));
      case LUA_TSTRING:
        return this.text(idx).json;
      case LUA_TTABLE:
        return this.table(idx, key, depth);
      default:
        throw NOT_PLAIN;
    }
  }

  /** The Lua integer at `idx` in decimal (as a double when that is exact: no BigInt for the common case). */
  private integer(idx: number): string {
    const n = this.c.m._lua_tonumberx(this.L, idx, 0);
    return Number.isSafeInteger(n) ? String(n) : this.c.m._lua_tointegerx(this.L, idx, 0).toString();
  }

  private text(idx: number): Text {
    const known = this.texts.get(this.c.m._lua_tolstring(this.L, idx, 0));
    if (known !== undefined) return known;
    const bytes = this.c.view(this.L, idx)!;
    const text = utf8Text(bytes);
    const made = { text, json: quoted(text) };
    if (bytes.length <= SHORT_STRING) this.texts.set(bytes.byteOffset, made);
    return made;
  }

  private table(idx: number, key: string | undefined, depth: number): string {
    const { L, marks } = this;
    const { m } = this.c;
    const address = m._lua_topointer(L, idx);
    if (address === marks.null) return "null";
    let kind: "array" | "object" | undefined;
    if (m._lua_getmetatable(L, idx)) {
      const meta = m._lua_topointer(L, -1);
      m._lua_settop(L, -2);
      if (meta === marks.array) kind = "array";
      else if (meta === marks.object) kind = "object";
      else throw NOT_PLAIN;
    }
    if (this.open.has(address) || depth >= MAX_DEPTH || !m._lua_checkstack(L, 4)) throw NOT_PLAIN;
    this.open.add(address);
    // Each entry: its key as an object key (and that key's JSON, for string keys), its index when the key is a
    // positive integer (else 0), its value's JSON.
    const names: string[] = [];
    const nameJsons: (string | undefined)[] = [];
    const indexes: number[] = [];
    const values: string[] = [];
    let maxIndex = 0;
    let named = 0;
    m._lua_pushnil(L);
    while (m._lua_next(L, idx)) {
      const value = m._lua_gettop(L);
      if (m._lua_type(L, -2) === LUA_TSTRING) {
        const name = this.text(-2);
        names.push(name.text);
        nameJsons.push(name.json);
        indexes.push(0);
        named++;
        values.push(this.value(value, name.text, depth + 1));
      } else if (m._lua_isinteger(L, -2)) {
        const k = m._lua_tonumberx(L, -2, 0);
        if (!Number.isSafeInteger(k)) throw NOT_PLAIN; // beyond 2^53: json.lua
        names.push(String(k));
        nameJsons.push(undefined);
        indexes.push(k > 0 ? k : 0);
        if (k > maxIndex) maxIndex = k;
        values.push(this.value(value, undefined, depth + 1));
      } else {
        throw NOT_PLAIN; // float, boolean or table keys: json.lua writes the float or names the bad key
      }
      m._lua_settop(L, -2);
    }
    this.open.delete(address);
    const count = values.length;
    const onlyIndex = named === 0 && indexes.every((i) => i > 0);
    let asArray: boolean;
    if (kind === "array") {
      if (!onlyIndex) throw NOT_PLAIN; // json.lua's error
      asArray = true;
    } else if (kind === "object") asArray = false;
    else if (count === 0) asArray = key !== undefined && ARRAY_KEYWORDS.has(key);
    else asArray = onlyIndex && maxIndex <= count * 2 + 8;
    if (asArray) {
      if (maxIndex > count * 2 + 8) throw NOT_PLAIN; // mostly holes: json.lua writes (or runs out of memory on) them
      const items = new Array<string>(maxIndex).fill("null");
      for (let i = 0; i < count; i++) items[indexes[i]! - 1] = values[i]!;
      return `[${items.join(",")}]`;
    }
    if (named > 0 && named < count && new Set(names).size !== count) throw NOT_PLAIN; // 1 and "1": json.lua's error
    const order = Array.from(names.keys()).sort((a, b) => byCodePoint(names[a]!, names[b]!));
    let out = "{";
    for (const i of order) out += `${out.length > 1 ? "," : ""}${nameJsons[i] ?? quoted(names[i]!)}:${values[i]}`;
    return `${out}}`;
  }
}

/** UTF-8 bytes as text; bytes that are not UTF-8 are json.lua's to replace (and to say so). */
function utf8Text(bytes: Uint8Array): string {
  if (bytes.length <= 64) {
    let ascii = true;
    for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) ascii = false;
    if (ascii) return String.fromCharCode(...bytes);
  }
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw NOT_PLAIN;
  }
}

/** A JSON string as json.lua writes it: JSON.stringify's escapes, and DEL escaped too. */
function quoted(s: string): string {
  const text = JSON.stringify(s);
  return text.includes("\x7f") ? text.replaceAll("\x7f", "\\u007f") : text;
}

/** Code point order: the byte order of the UTF-8 forms, which json.lua sorts keys by (UTF-16 order differs above U+D7FF). */
function byCodePoint(a: string, b: string): number {
  if (!SURROGATE_OR_ABOVE.test(a) && !SURROGATE_OR_ABOVE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
const SURROGATE_OR_ABOVE = /[\ud800-\uffff]/;

/**
 * A float as json.lua writes it: C's `%.14g`, else `%.15g`, `%.16g` or `%.17g`, the first that reads back as the
 * same number, with `.0` added to a whole number; null for NaN and the infinities. That is JavaScript's shortest
 * digits that read back (the closest such, ties to even as in C) laid out as `%g` does at max(14, their count)
 * digits: at 15 digits or fewer, decimals are over four times a double's rounding error apart, so rounding the
 * exact value to that many digits gives them; at 16 and 17 the closest digits are what rounding gives, except for
 * a power of two (a double's neighbour below it is nearer than the one above). Those, and the subnormal numbers,
 * json.lua writes.
 */
function floatText(v: number): string {
  if (!Number.isFinite(v)) return "null";
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  if (Math.abs(v) < MIN_NORMAL) throw NOT_PLAIN; // fewer bits, so the shortest digits are shorter than C's 14
  const [mantissa, exponentText] = v.toExponential().split("e") as [string, string];
  const exponent = Number(exponentText);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  if (digits.length >= 16 && isPowerOfTwo(v)) throw NOT_PLAIN;
  const precision = Math.max(14, digits.length);
  let text: string;
  if (exponent < -4 || exponent >= precision) {
    const e = `${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
    text = `${sign}${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ""}e${e}`;
  } else if (exponent >= 0) {
    const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
    const fraction = digits.slice(exponent + 1);
    text = `${sign}${whole}${fraction ? `.${fraction}` : ""}`;
  } else {
    text = `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  }
  return /[.eEn]/.test(text) ? text : `${text}.0`;
}

/** The smallest normal double, 2^-1022. */
const MIN_NORMAL = 2.2250738585072014e-308;
const float = new Float64Array(1);
const floatWords = new Uint32Array(float.buffer);

/** Whether a finite, non-zero double's significand is 1 (no fraction bits). */
function isPowerOfTwo(v: number): boolean {
  float[0] = v;
  return floatWords[0] === 0 && (floatWords[1]! & 0xfffff) === 0;
}

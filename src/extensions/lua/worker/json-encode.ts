/**
 * JSON text of a Lua value, byte for byte as runtime/json.lua's encoder writes it, made here through the C API so
 * that no Lua instruction runs. An extension's load encodes its tools' schemas and its registration list; in Lua
 * that is most of the load's instructions (≈ 6 000 of 6 500 for two small tools), and the Lua VM's main loop,
 * charged per instruction by V8's tiering budget, got recompiled by TurboFan in every cold start with many
 * extensions (docs/benchmarks.md, "The cold start without the wasm tier-up").
 *
 * Only plain data is encoded here: anything else (a function, a cycle, a table with a metatable other than
 * json.array's, json.object's or json.null's, a string that is not UTF-8, a float key, keys that clash, a float
 * that C and JavaScript would round apart, deep nesting) gives `undefined`, and json.lua encodes the value
 * itself, with its own errors and replacements.
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

/** Thrown inside the walk: the value is not plain data, json.lua encodes it. */
const NOT_PLAIN = Symbol("not plain data");

/** One table entry: its key as an object key, its index when the key is a positive integer, its value's JSON. */
interface Entry {
  name: string;
  index: number;
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
  /** The tables being encoded, outermost first (a table inside itself is json.lua's error). */
  private readonly open = new Set<number>();

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
        return m._lua_isinteger(this.L, idx) ? m._lua_tointegerx(this.L, idx, 0).toString() : floatText(m._lua_tonumberx(this.L, idx, 0));
      case LUA_TSTRING:
        return quoted(this.text(idx));
      case LUA_TTABLE:
        return this.table(idx, key, depth);
      default:
        throw NOT_PLAIN;
    }
  }

  private text(idx: number): string {
    try {
      return strictUtf8.decode(this.c.view(this.L, idx)!);
    } catch {
      throw NOT_PLAIN; // json.lua replaces the bad bytes and says so
    }
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
    const entries: Entry[] = [];
    let maxIndex = 0;
    m._lua_pushnil(L);
    while (m._lua_next(L, idx)) {
      const value = m._lua_gettop(L);
      let entry: Entry;
      if (m._lua_type(L, -2) === LUA_TSTRING) {
        const name = this.text(-2);
        entry = { name, index: 0, json: this.value(value, name, depth + 1) };
      } else if (m._lua_isinteger(L, -2)) {
        const k = m._lua_tointegerx(L, -2, 0);
        const index = k > 0n && k <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(k) : 0;
        if (index === 0 && k > 0n) throw NOT_PLAIN;
        maxIndex = Math.max(maxIndex, index);
        entry = { name: k.toString(), index, json: this.value(value, undefined, depth + 1) };
      } else {
        throw NOT_PLAIN; // float, boolean or table keys: json.lua writes the float or names the bad key
      }
      entries.push(entry);
      m._lua_settop(L, -2);
    }
    this.open.delete(address);
    const onlyIndex = entries.every((e) => e.index > 0);
    const count = entries.length;
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
      for (const e of entries) items[e.index - 1] = e.json;
      return `[${items.join(",")}]`;
    }
    const names = new Set(entries.map((e) => e.name));
    if (names.size !== count) throw NOT_PLAIN; // 1 and "1": json.lua's error
    entries.sort((a, b) => byCodePoint(a.name, b.name));
    return `{${entries.map((e) => `${quoted(e.name)}:${e.json}`).join(",")}}`;
  }
}

/** A JSON string as json.lua writes it: JSON.stringify's escapes, and DEL escaped too. */
function quoted(s: string): string {
  const text = JSON.stringify(s);
  return text.includes("\x7f") ? text.replaceAll("\x7f", "\\u007f") : text;
}

/** Code point order: the byte order of the UTF-8 forms, which json.lua sorts keys by (UTF-16 order differs above U+D7FF). */
function byCodePoint(a: string, b: string): number {
  if (!/[\ud800-\uffff]/.test(a + b)) return a < b ? -1 : a > b ? 1 : 0;
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * A float as json.lua writes it: C's `%.14g`, or `%.15g`, `%.16g`, `%.17g` when fewer digits do not read back the
 * same number, `.0` added to a whole number, null for NaN and the infinities.
 */
function floatText(v: number): string {
  if (!Number.isFinite(v)) return "null";
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  const exact = exactDigits(v);
  let text = "";
  for (let precision = 14; precision <= 17; precision++) {
    // A tie rounds half up here and half to even in C: left to json.lua.
    if (exact.length === precision + 1 && exact.endsWith("5")) throw NOT_PLAIN;
    text = formatG(v, precision);
    if (Number(text) === v) break;
  }
  return /[.eEn]/.test(text) ? text : `${text}.0`;
}

/** The significant digits of a finite, non-zero double's exact decimal value (no trailing zeros). */
function exactDigits(v: number): string {
  const bits = new DataView(new Float64Array([v]).buffer).getBigUint64(0, true);
  const field = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & 0xfffffffffffffn;
  let exponent = field === 0 ? -1074 : field - 1075;
  if (field !== 0) mantissa |= 1n << 52n;
  while ((mantissa & 1n) === 0n) {
    mantissa >>= 1n;
    exponent++;
  }
  const digits = exponent >= 0 ? (mantissa << BigInt(exponent)).toString() : (mantissa * 5n ** BigInt(-exponent)).toString();
  return digits.replace(/0+$/, "");
}

/** C's `%.<precision>g` of a finite, non-zero number. */
function formatG(v: number, precision: number): string {
  const [mantissa, exponentText] = v.toExponential(precision - 1).split("e") as [string, string];
  const exponent = Number(exponentText);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  const trimmed = (s: string) => s.replace(/0+$/, "");
  if (exponent < -4 || exponent >= precision) {
    const fraction = trimmed(digits.slice(1));
    const e = `${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
    return `${sign}${digits[0]}${fraction ? `.${fraction}` : ""}e${e}`;
  }
  if (exponent >= 0) {
    const fraction = trimmed(digits.slice(exponent + 1));
    return `${sign}${digits.slice(0, exponent + 1)}${fraction ? `.${fraction}` : ""}`;
  }
  return `${sign}0.${trimmed("0".repeat(-exponent - 1) + digits)}`;
}

/**
 * A thin, fast bridge over the Lua C API that wasmoon's WebAssembly build exports. wasmoon's own
 * conversion is slow (its glue is built with assertions) and loses information, so awl moves only
 * strings, numbers and booleans across, by hand, through the raw exports.
 */

/** The raw exports of wasmoon's Emscripten module that awl uses (pointers and states are numbers). */
export interface LuaModule {
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
  _malloc(size: number): number;
  _free(ptr: number): void;
  _realloc(ptr: number, size: number): number;
  addFunction(fn: (...args: number[]) => number | void, signature: string): number;
  _lua_newstate(alloc: number, ud: number): number;
  _luaL_newstate(): number;
  _lua_setallocf(L: number, alloc: number, ud: number): void;
  _lua_getallocf(L: number, udOut: number): number;
  _lua_atpanic(L: number, panic: number): number;
  _lua_setwarnf(L: number, warn: number, ud: number): void;
  _lua_close(L: number): void;
  _luaL_openlibs(L: number): void;
  _lua_gettop(L: number): number;
  _lua_settop(L: number, idx: number): void;
  _lua_type(L: number, idx: number): number;
  _lua_tolstring(L: number, idx: number, lenPtr: number): number;
  _lua_toboolean(L: number, idx: number): number;
  _lua_tonumberx(L: number, idx: number, isnum: number): number;
  _lua_tointegerx(L: number, idx: number, isnum: number): bigint;
  _lua_isinteger(L: number, idx: number): number;
  _lua_pushnil(L: number): void;
  _lua_pushboolean(L: number, b: number): void;
  _lua_pushinteger(L: number, n: bigint): void;
  _lua_pushnumber(L: number, n: number): void;
  _lua_pushlstring(L: number, s: number, len: number): number;
  _lua_pushcclosure(L: number, fn: number, n: number): void;
  _lua_createtable(L: number, narr: number, nrec: number): void;
  _lua_rawseti(L: number, idx: number, n: bigint): void;
  _lua_setfield(L: number, idx: number, k: number): void;
  _lua_getfield(L: number, idx: number, k: number): number;
  _luaL_loadbufferx(L: number, buf: number, size: number, name: number, mode: number): number;
  _lua_pcallk(L: number, nargs: number, nresults: number, errfunc: number, ctx: number, k: number): number;
  _luaL_ref(L: number, t: number): number;
  _lua_rawgeti(L: number, idx: number, n: bigint): number;
  _lua_sethook(L: number, fn: number, mask: number, count: number): void;
  _lua_error(L: number): number;
  _lua_getstack(L: number, level: number, ar: number): number;
  _lua_absindex(L: number, idx: number): number;
  _lua_checkstack(L: number, n: number): number;
  _lua_next(L: number, idx: number): number;
  _lua_topointer(L: number, idx: number): number;
  _lua_getmetatable(L: number, idx: number): number;
  _lua_getinfo(L: number, what: number, ar: number): number;
}

export const LUA_REGISTRYINDEX = -1000000 - 1000;
export const LUA_TNIL = 0;
export const LUA_TBOOLEAN = 1;
export const LUA_TNUMBER = 3;
export const LUA_TSTRING = 4;
export const LUA_TTABLE = 5;
export const LUA_MASKCOUNT = 8;
export const LUA_OK = 0;

/**
 * A value a host function returns to Lua. Uint8Array becomes a Lua string byte for byte; an array becomes a
 * sequence and a plain object a table with string keys (built directly on the Lua stack: no JSON in between).
 */
export type HostValue = string | number | bigint | boolean | Uint8Array | null | undefined | HostValue[] | HostRecord;
export interface HostRecord {
  [key: string]: HostValue;
}

const encoder = new TextEncoder();
// ignoreBOM: a leading U+FEFF is text the string holds (a file's mark), not a mark to drop.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

export class LuaC {
  private readonly lenPtr: number;
  private scratch = 0;
  private scratchSize = 0;

  constructor(readonly m: LuaModule) {
    this.lenPtr = m._malloc(8);
  }

  /** A buffer in wasm memory of at least `size` bytes (reused; valid until the next call). */
  scratchBuffer(size: number): number {
    if (size > this.scratchSize) {
      if (this.scratch) this.m._free(this.scratch);
      this.scratchSize = Math.max(size, 65536);
      this.scratch = this.m._malloc(this.scratchSize);
      if (!this.scratch) {
        this.scratchSize = 0;
        throw new Error(`cannot allocate ${size} bytes in wasm memory`);
      }
    }
    return this.scratch;
  }

  /** A zero-terminated copy of `s` in wasm memory that lives as long as the state (names, chunk names). */
  cstring(s: string): number {
    const bytes = encoder.encode(s);
    const p = this.m._malloc(bytes.length + 1);
    this.m.HEAPU8.set(bytes, p);
    this.m.HEAPU8[p + bytes.length] = 0;
    return p;
  }

  pushString(L: number, s: string): void {
    const size = s.length < 65536 ? s.length * 3 : Buffer.byteLength(s);
    const p = this.scratchBuffer(size);
    const { written } = encoder.encodeInto(s, this.m.HEAPU8.subarray(p, p + size));
    this.m._lua_pushlstring(L, p, written);
  }

  pushBytes(L: number, bytes: Uint8Array): void {
    const p = this.scratchBuffer(bytes.length);
    this.m.HEAPU8.set(bytes, p);
    this.m._lua_pushlstring(L, p, bytes.length);
  }

  push(L: number, v: HostValue): void {
    const m = this.m;
    switch (typeof v) {
      case "string":
        return this.pushString(L, v);
      case "number":
        if (Number.isSafeInteger(v)) return m._lua_pushinteger(L, BigInt(v));
        return m._lua_pushnumber(L, v);
      case "bigint":
        return m._lua_pushinteger(L, v);
      case "boolean":
        return m._lua_pushboolean(L, v ? 1 : 0);
      default:
        if (v instanceof Uint8Array) return this.pushBytes(L, v);
        if (Array.isArray(v)) return this.pushArray(L, v);
        if (v !== null && typeof v === "object") return this.pushRecord(L, v);
        return m._lua_pushnil(L);
    }
  }

  private pushArray(L: number, values: HostValue[]): void {
    this.m._lua_createtable(L, values.length, 0);
    for (let i = 0; i < values.length; i++) {
      this.push(L, values[i]);
      this.m._lua_rawseti(L, -2, BigInt(i + 1));
    }
  }

  private pushRecord(L: number, record: HostRecord): void {
    const keys = Object.keys(record);
    this.m._lua_createtable(L, 0, keys.length);
    for (const key of keys) {
      const value = record[key];
      if (value === undefined || value === null) continue;
      this.push(L, value);
      this.m._lua_setfield(L, -2, this.key(key));
    }
  }

  /** Field names repeat (every entry of a listing has the same few): one C string each, kept for the state's life. */
  private readonly keys = new Map<string, number>();
  private key(name: string): number {
    let p = this.keys.get(name);
    if (p === undefined) this.keys.set(name, (p = this.cstring(name)));
    return p;
  }

  /** The bytes of the string at `idx`, as a view into wasm memory (copy before the next Lua call), or null. */
  view(L: number, idx: number): Uint8Array | null {
    if (this.m._lua_type(L, idx) !== LUA_TSTRING) return null;
    const p = this.m._lua_tolstring(L, idx, this.lenPtr);
    const len = this.m.HEAPU32[this.lenPtr >> 2]!;
    return this.m.HEAPU8.subarray(p, p + len);
  }

  /** The string at `idx` decoded as UTF-8 (invalid bytes become U+FFFD), or null. */
  string(L: number, idx: number): string | null {
    const v = this.view(L, idx);
    return v === null ? null : decoder.decode(v);
  }

  number(L: number, idx: number): number | null {
    if (this.m._lua_type(L, idx) !== LUA_TNUMBER) return null;
    return this.m._lua_tonumberx(L, idx, 0);
  }

  boolean(L: number, idx: number): boolean {
    return this.m._lua_toboolean(L, idx) !== 0;
  }

  /** Loads a chunk from UTF-8 source; returns an error message or null (the function is pushed). */
  load(L: number, source: Uint8Array | string, chunkName: string): string | null {
    const bytes = typeof source === "string" ? encoder.encode(source) : source;
    const name = this.cstring(chunkName);
    const mode = this.cstring("t");
    const p = this.m._malloc(bytes.length || 1);
    this.m.HEAPU8.set(bytes, p);
    const status = this.m._luaL_loadbufferx(L, p, bytes.length, name, mode);
    this.m._free(p);
    this.m._free(name);
    this.m._free(mode);
    if (status === LUA_OK) return null;
    const message = this.string(L, -1) ?? "cannot load chunk";
    this.m._lua_settop(L, -2);
    return message;
  }
}

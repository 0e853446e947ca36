/**
 * Where Lua code is running, read from the C API without running Lua or allocating from the Lua state:
 * for an allocation refused at the memory cap, whose error reaches no message handler (Lua 5.4 does not call
 * it for memory errors), so the usual traceback is never built.
 */
import type { LuaModule } from "./lua-c.js";

// lua_Debug on wasm32 (Lua 5.4): the offsets of the fields read here.
const AR_SIZE = 128;
const AR_WHAT = 12;
const AR_SOURCE = 16;
const AR_CURRENTLINE = 24;
const AR_LINEDEFINED = 28;
const MAX_FRAMES = 40;

export class StackWhere {
  private ar = 0;
  private options = 0;

  constructor(
    private readonly m: LuaModule,
    /** Frames from files below this folder (awl's own runtime) are left out. */
    private readonly runtimeDir: string,
  ) {}

  /** A Lua-style traceback of the extension's frames on `L`'s stack, innermost first ("" when there are none). */
  traceback(L: number): string {
    const m = this.m;
    if (this.ar === 0) {
      this.ar = m._malloc(AR_SIZE);
      this.options = m._malloc(3);
      m.HEAPU8.set([0x53, 0x6c, 0], this.options); // "Sl"
    }
    const lines: string[] = [];
    for (let level = 0; level < MAX_FRAMES && m._lua_getstack(L, level, this.ar) !== 0; level++) {
      if (m._lua_getinfo(L, this.options, this.ar) === 0) break;
      const source = this.cstring(this.word(AR_SOURCE));
      if (!source.startsWith("@") || source.startsWith(`@${this.runtimeDir}`)) continue;
      const file = source.slice(1);
      const what = this.cstring(this.word(AR_WHAT));
      const line = this.word(AR_CURRENTLINE) | 0;
      lines.push(`\t${file}:${line}: in ${what === "main" ? "main chunk" : `function <${file}:${this.word(AR_LINEDEFINED) | 0}>`}`);
    }
    return lines.length > 0 ? `stack traceback:\n${lines.join("\n")}` : "";
  }

  private word(offset: number): number {
    return this.m.HEAPU32[(this.ar + offset) >> 2]!;
  }

  private cstring(p: number): string {
    if (p === 0) return "";
    const heap = this.m.HEAPU8;
    let end = p;
    while (heap[end] !== 0 && end - p < 4096) end++;
    return Buffer.from(heap.subarray(p, end)).toString("utf8");
  }
}

// Precompiles awl's Lua runtime (part of `npm run build`, after its files are copied to dist/): each
// dist/extensions/lua/runtime/NAME.lua gets NAME.luac beside it, its bytecode with debug information (string.dump),
// made by the same wasmoon build that runs it. Every Lua worker boots the runtime; loading bytecode skips Lua's
// parser, about half of that boot on a cold worker. The chunks name their source `@<awl-runtime>/NAME.lua`: a worker
// puts its own runtime folder there as it loads one (worker/compiled-chunk.ts), so messages and tracebacks name the
// file wherever the package is. The runtime's boot.lua loads a NAME.luac only when it is newer than NAME.lua.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "extensions", "lua");
const runtime = join(dist, "runtime");
const { LuaC } = await import(join(dist, "worker", "lua-c.js"));
const { RUNTIME_SOURCE_MARK } = await import(join(dist, "worker", "compiled-chunk.js"));
const { LuaFactory } = createRequire(import.meta.url)("wasmoon");
const m = (await new LuaFactory().getLuaModule()).module;
const c = new LuaC(m);
const L = m._lua_newstate(m.addFunction((_ud, ptr, _old, size) => (size === 0 ? (m._free(ptr), 0) : m._realloc(ptr, size)), "iiiii"), 0);
m._luaL_openlibs(L);
const names = readdirSync(runtime).filter((f) => f.endsWith(".lua") && f !== "boot.lua");
for (const name of names) {
  c.load(L, Buffer.from("local src, name = ...; return string.dump(assert(load(src, name, 't')))"), "=compile");
  c.pushBytes(L, readFileSync(join(runtime, name)));
  c.pushString(L, `@${RUNTIME_SOURCE_MARK}/${name}`);
  if (m._lua_pcallk(L, 2, 1, 0, 0, 0) !== 0) throw new Error(`cannot compile ${name}: ${c.string(L, -1)}`);
  writeFileSync(join(runtime, `${name}c`), c.view(L, -1));
  m._lua_settop(L, 0);
}
console.log(`compiled the Lua runtime: ${names.length} files in dist/extensions/lua/runtime/`);

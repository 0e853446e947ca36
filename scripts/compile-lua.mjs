// Precompiles the Lua awl ships (part of `npm run build`, after the runtime is copied to dist/): awl's runtime
// (dist/extensions/lua/runtime/*.lua but boot.lua) and the bundled extensions (extensions/std/*.lua) each get
// FILE.luac beside them, their bytecode with debug information (string.dump), made by the same wasmoon build that
// runs it. Every Lua worker boots the runtime and loads the bundled extensions before a first tool call can run;
// loading bytecode skips Lua's parser, much of that on a cold worker. A worker names the file a chunk is loaded for
// as its source (worker/compiled-chunk.ts) and loads FILE.luac only when it is newer than FILE (not edited since).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const lua = join(root, "dist", "extensions", "lua");
const folders = [
  { dir: join(lua, "runtime"), skip: "boot.lua" }, // boot.lua is loaded by the worker itself, as text
  { dir: join(root, "extensions", "std") },
];
const { LuaC } = await import(join(lua, "worker", "lua-c.js"));
const { LuaFactory } = createRequire(import.meta.url)("wasmoon");
const m = (await new LuaFactory().getLuaModule()).module;
const c = new LuaC(m);
const L = m._lua_newstate(m.addFunction((_ud, ptr, _old, size) => (size === 0 ? (m._free(ptr), 0) : m._realloc(ptr, size)), "iiiii"), 0);
m._luaL_openlibs(L);
let count = 0;
for (const { dir, skip } of folders) {
  for (const name of readdirSync(dir).filter((f) => f.endsWith(".lua") && f !== skip)) {
    // As the worker reads an extension: a first line starting with "#" is a comment (awl.lua, load_extension).
    c.load(L, Buffer.from(`local src, name = ...; if src:sub(1, 1) == "#" then src = "--" .. src end; return string.dump(assert(load(src, name, "t")))`), "=compile");
    c.pushBytes(L, readFileSync(join(dir, name)));
    c.pushString(L, `@${name}`);
    if (m._lua_pcallk(L, 2, 1, 0, 0, 0) !== 0) throw new Error(`cannot compile ${join(dir, name)}: ${c.string(L, -1)}`);
    writeFileSync(join(dir, `${name}c`), c.view(L, -1));
    m._lua_settop(L, 0);
    count++;
  }
}
console.log(`compiled awl's Lua: ${count} files (runtime and bundled extensions)`);

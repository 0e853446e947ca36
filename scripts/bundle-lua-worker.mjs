// The Lua worker's bundle (part of `npm run build`, after tsc): rolldown joins tsc's dist/extensions/lua/worker/main.js,
// the awl modules it imports and wasmoon into one CommonJS file, dist/extensions/lua/worker-main.cjs, which every
// Lua worker thread runs through its loader, worker.cjs (src/extensions/lua/worker/loader.ts: V8's code cache). A
// worker's own start is on the way of the first tool call: as CommonJS it needs none of Node's ESM loader, and as
// one file it reads and compiles one script.
import { readFileSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";

const lua = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "extensions", "lua");
const builtins = new Set(builtinModules);

/**
 * wasmoon's Emscripten glue gets `createRequire` through `await import('module')`, which starts Node's ESM loader in
 * every worker (a few ms of its start); a CommonJS bundle has `require` already.
 */
const requireNotImport = {
  name: "wasmoon-require-not-import",
  transform(code, id) {
    if (!id.includes("/node_modules/wasmoon/")) return null;
    const dynamicImport = "await import('module')";
    const count = code.split(dynamicImport).length - 1;
    if (count !== 1) throw new Error(`${id}: expected one ${dynamicImport} in wasmoon's glue, found ${count} (is wasmoon still the pinned version?)`);
    return code.replace(dynamicImport, "require('module')");
  },
};

/**
 * The bundle as ASCII: a few characters above U+00FF in its comments and strings (≈, U+FFFD) made V8 hold the whole
 * ~250 KB source as a two-byte string in every worker, twice (read, then wrapped for the code cache: ≈ 1 MB of its
 * heap), and decode it on the slow path. Each is written as its `\uXXXX` escape instead, which means the same
 * character in a string, a template, a regular expression (with or without the `u` flag) and an identifier, and is
 * only text in a comment. (After the bundle is written: rolldown prints string literals' escapes as characters.)
 */
function writeAscii(file) {
  const code = readFileSync(file, "utf8");
  if (/\bString\.raw\b/.test(code)) throw new Error(`${file} uses String.raw, where an escape would change the text`);
  writeFileSync(file, code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

const external = (id) => id.startsWith("node:") || builtins.has(id);
// worker.cjs, what a Worker starts, is the small loader that runs worker-main.cjs through V8's code cache.
for (const [input, output] of [
  ["main.js", "worker-main.cjs"],
  ["loader.js", "worker.cjs"],
]) {
  const bundle = await rolldown({ input: join(lua, "worker", input), platform: "node", external, plugins: [requireNotImport] });
  await bundle.write({ file: join(lua, output), format: "cjs" });
  writeAscii(join(lua, output));
  await bundle.close();
}
console.log("bundled the Lua worker: dist/extensions/lua/worker.cjs (its loader) and worker-main.cjs");

// The Lua worker's bundle (part of `npm run build`, after tsc): rolldown joins tsc's dist/extensions/lua/worker/main.js
// and the awl modules it imports into one CommonJS file, dist/extensions/lua/worker.cjs, which every Lua worker
// thread runs. A worker's own start is on the way of the first tool call: as CommonJS it needs none of Node's ESM
// loader, and as one file it reads and compiles one script. Packages (wasmoon) stay require()s of node_modules.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";

const lua = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "extensions", "lua");
const bundle = await rolldown({
  input: join(lua, "worker", "main.js"),
  platform: "node",
  // Only awl's own modules are bundled: a bare specifier is Node's or a package's.
  external: (id) => !id.startsWith(".") && !id.startsWith("/"),
});
await bundle.write({ file: join(lua, "worker.cjs"), format: "cjs" });
await bundle.close();
console.log("bundled the Lua worker: dist/extensions/lua/worker.cjs");

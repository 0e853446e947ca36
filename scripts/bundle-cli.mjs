// The CLI's start-up bundle (part of `npm run build`, after tsc): rolldown joins tsc's dist/cli/main.js and the awl
// modules it imports into one entry file, which replaces it, and chunks for what it imports lazily
// (dist/cli/chunks/), so a run loads a few files instead of a hundred or more (ESM resolves, reads and links each
// module on its own: most of awl's start-up). Packages stay imports of node_modules. The library (dist/index.js)
// and the Lua worker (scripts/bundle-lua-worker.mjs) stay tsc's output here.
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";

const cli = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "cli");
const entry = join(cli, "main.js");
const bundle = await rolldown({
  input: entry,
  platform: "node",
  // Only awl's own modules are bundled: a bare specifier is Node's or a package's.
  external: (id) => !id.startsWith(".") && !id.startsWith("/"),
  // rolldown warns of a lazy import whose module another imports statically (it loads with that one): expected here.
  onLog: (level, log, handler) => (log.code === "INEFFECTIVE_DYNAMIC_IMPORT" ? undefined : handler(level, log)),
});
const options = { dir: cli, format: "esm", entryFileNames: "main.js", chunkFileNames: "chunks/[name]-[hash].js" };
const { output } = await bundle.generate(options);
// The chunks of an earlier build, and tsc's source map of the entry the bundle replaces, would only mislead.
rmSync(join(cli, "chunks"), { recursive: true, force: true });
rmSync(`${entry}.map`, { force: true });
await bundle.write(options);
await bundle.close();
console.log(`bundled the CLI: ${output.filter((o) => o.type === "chunk").length} files in dist/cli/`);

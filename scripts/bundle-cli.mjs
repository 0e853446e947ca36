// The CLI's start-up bundle (part of `npm run build`, after tsc): rolldown joins tsc's dist/cli/main.js and the awl
// modules it imports into one CommonJS entry file, dist/cli/main.cjs (the `awl` command; tsc's main.js stays a module),
// and CommonJS chunks for what it imports lazily (dist/cli/chunks/*.cjs), so a run loads a few files instead of a
// hundred or more. CommonJS because Node 20's ESM loader alone costs ≈ 12 ms of every run before any of awl's code
// (its start, then a resolve, a read and a link per module), and because Node 20 has no compile cache for ES modules:
// awl compiles its CommonJS files through V8's code cache itself (src/cli/compile-cache.ts). Packages stay requires
// of node_modules (`import()` of one too: rolldown's `dynamicImportInCjs: false`), but for those Node can only
// import (ESM only: marked, string-width, the ACP SDK), which are bundled in, so that no run starts the ESM loader
// (with those of their dependencies that the chunks' folder would not find as the package does: isRequired), and
// those a one-line reply loads (TEXT_PATH_PACKAGES), so that the code cache covers all it runs.
// The library (dist/index.js) stays ESM and the Lua worker has its own bundle (scripts/bundle-lua-worker.mjs).
//
// The modules the program loads in turn (the program itself, the main command's settings and tools, its runtime,
// the interactive mode's own) each go into one chunk, START_PHASES below: split the default way, they came as ~60
// small chunks (every set of modules that two lazy imports share becomes its own), and each file costs the loader
// a resolve, a read and a compile (`awl -p`: 34 files, 56 before the program had its phase). A module that the
// entry, the compile cache, `awl --version` (version.js) or the Lua thread's start-up (extensions/lua/) imports
// stays out of them, so that those load no more than they need; a subcommand that imports a grouped module loads
// its phase's chunk. No module may await at its top level (CommonJS has no such thing: rolldown refuses it).
import { existsSync, readFileSync, rmSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const cli = join(dist, "cli");
const entry = join(cli, "main.js");

/** The phases of the main command's start, in order: each the modules its lazy imports (paths in dist/) reach. */
const START_PHASES = [
  // The program: the subcommand table, flags, the main command's first steps, help (`awl --version` alone skips it).
  { name: "program", imports: ["cli/program.js", "cli/chat.js", "cli/help.js"] },
  // awl reads its settings: the config files, the permissions and the folder's trust. Also what the interactive
  // screen shares with a turn (the usage meter, the output sink), so that print mode, which needs them, does not
  // load the screen's chunk for them.
  { name: "settings", imports: ["config/index.js", "runtime/run-permissions.js", "usage/meter.js", "ui/output/sink.js"] },
  // The interactive mode's screen: its prompt is drawn before the rest opens (src/cli/interactive/screen.ts).
  { name: "screen", imports: ["cli/interactive/screen.js"] },
  // awl opens its tools: the Lua extensions' tool set.
  { name: "open", imports: ["runtime/chat-tools.js", "runtime/open-lua-tools.js", "runtime/run-secrets.js"] },
  // awl builds what a turn needs, while a Lua worker may be starting: the runtime, print mode, permission layer, hooks.
  { name: "turn", imports: ["runtime/build-runtime.js", "cli/print-mode.js", "permissions/tool-set.js", "hooks/setup.js", "hooks/hook-tool-set.js"] },
  // A trusted folder's pinned content, checked at every start there (print mode too): its own chunk, lazily loaded,
  // rather than the interactive mode's, which also reaches these modules (after the phases a reply loads, so that
  // what it shares with them, e.g. the file lock, stays in theirs).
  { name: "trust", imports: ["trust/pin.js", "trust/content.js", "permissions/save.js"] },
  // A run that saves its conversation (not `--no-session`): the sessions' modules.
  { name: "session", imports: ["runtime/session-hook.js"] },
  // The interactive mode's own modules, before its prompt is drawn.
  { name: "interactive", imports: ["cli/interactive/repl.js"] },
];
/** Never in a phase's chunk (nor what they import): the entry, the compile cache, `awl --version`'s path, the Lua thread's start. */
const isOwnPath = (path) => ["cli/main.js", "cli/compile-cache.js", "version.js"].includes(path) || path.startsWith("extensions/lua/");

/**
 * Packages a one-line reply (`awl -p`) loads, bundled all the same: in a chunk, the code cache covers them, and no
 * package lookup runs (Node's resolution of a package's "exports" is ≈ 8 KB of its own code compiled on first use).
 * Only small packages of plain JavaScript that find nothing through their own path (no data files, no WebAssembly).
 */
const TEXT_PATH_PACKAGES = new Set(["eventsource-parser"]);
/** The file `require(id)` loads from `from` (a file), or undefined when the package has no "require" export. */
function requireResolve(id, from) {
  try {
    return createRequire(from).resolve(id);
  } catch {
    return undefined;
  }
}
/** Whether `file` is an ES module to Node. */
function isEsm(file) {
  if (file.endsWith(".mjs") || file.endsWith(".cjs")) return file.endsWith(".mjs");
  let dir = dirname(file);
  while (!existsSync(join(dir, "package.json"))) dir = dirname(dir);
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).type === "module";
}
/**
 * Whether the bundle `require`s the bare specifier `id` that `importer` imports, instead of bundling it: Node's
 * modules, and packages that Node can `require` and that a chunk (in dist/cli/chunks/) finds as the importer does
 * (a bundled package's own dependency may be another version, in its own node_modules: it is bundled with it).
 */
function isRequired(id, importer) {
  if (id.startsWith("node:") || builtinModules.includes(id)) return true;
  if (TEXT_PATH_PACKAGES.has(id)) return false;
  const file = requireResolve(id, importer ?? entry);
  return file !== undefined && !isEsm(file) && requireResolve(id, entry) === file;
}
const graph = new Map(); // module path in dist/ → the awl modules it imports statically
const bundle = await rolldown({
  input: entry,
  platform: "node",
  // Needed by the phases' groups (they add nothing to a set): the entry exports nothing, and nothing may import it
  // (checked below: a chunk requiring the entry would get it half run).
  preserveEntrySignatures: "allow-extension",
  // Only awl's own modules and the ESM-only packages are bundled: any other bare specifier is Node's or a package's.
  external: (id, importer, isResolved) => !isResolved && !id.startsWith(".") && !id.startsWith("/") && isRequired(id, importer),
  plugins: [{
    name: "awl-module-graph",
    buildEnd() {
      for (const id of this.getModuleIds()) {
        const info = this.getModuleInfo(id);
        if (info && !info.isExternal) graph.set(relative(dist, id), info.importedIds.filter((d) => d.startsWith(dist)).map((d) => relative(dist, d)));
      }
    },
  }],
  // rolldown warns of a lazy import whose module another imports statically (it loads with that one): expected here.
  onLog: (level, log, handler) => (log.code === "INEFFECTIVE_DYNAMIC_IMPORT" ? undefined : handler(level, log)),
});

/** `roots` and every module they import statically, except `skip`'s. */
function reach(roots, skip = new Set()) {
  const found = new Set();
  const visit = (path) => {
    if (found.has(path) || skip.has(path) || !graph.has(path)) return;
    found.add(path);
    for (const next of graph.get(path)) visit(next);
  };
  roots.forEach(visit);
  return found;
}

/** Each grouped module's phase, worked out once the graph is known (rolldown builds it when output is asked for). */
let phases;
function phaseOf(id) {
  if (!phases) {
    const missing = START_PHASES.flatMap((p) => p.imports).filter((path) => !graph.has(path));
    if (missing.length) throw new Error(`bundle-cli.mjs: START_PHASES names modules the CLI no longer has: ${missing.join(", ")}`);
    phases = new Map();
    const placed = reach([...graph.keys()].filter(isOwnPath));
    for (const phase of START_PHASES) {
      for (const path of reach(phase.imports, placed)) {
        phases.set(path, phase.name);
        placed.add(path);
      }
    }
  }
  return phases.get(relative(dist, id));
}
const options = {
  dir: cli,
  format: "cjs",
  dynamicImportInCjs: false,
  entryFileNames: "main.cjs",
  chunkFileNames: "chunks/[name]-[hash].cjs",
  // Plain ASCII files, without the sources' comments: Node decodes each file from UTF-8 before compiling it, and one
  // non-ASCII character (a "→" in a comment) sends a whole chunk down the slow path (≈ 2 ms for the turn chunk,
  // against 0.1 ms) and makes V8 hold and scan it as two-byte text.
  charset: "ascii",
  comments: false,
  // Each phase's set already holds what its modules import (but the entry's, --version's and the Lua thread's,
  // which must not move into it): rolldown adds nothing to it.
  codeSplitting: { groups: START_PHASES.map(({ name }) => ({ name, test: (id) => phaseOf(id) === name, includeDependenciesRecursively: false })) },
};
const { output } = await bundle.generate(options);
const importsEntry = output.filter((o) => o.type === "chunk" && o.imports.includes("main.cjs")).map((o) => o.fileName);
if (importsEntry.length) throw new Error(`bundle-cli.mjs: ${importsEntry.join(", ")} import the entry, which they would get half run`);
// The chunks of an earlier build would only mislead.
rmSync(join(cli, "chunks"), { recursive: true, force: true });
await bundle.write(options);
await bundle.close();
console.log(`bundled the CLI: ${output.filter((o) => o.type === "chunk").length} files in dist/cli/`);

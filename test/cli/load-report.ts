/**
 * What a run of the built awl loaded, read through a `--require` preload that reports as the process exits: the
 * CommonJS files of awl's package (their paths in it: `dist/cli/main.cjs`, `node_modules/...`) in the order Node
 * loaded them, whether Node ran any ES module (its loader's module jobs, which every `import` of one goes through),
 * and Node's built-in modules it loaded.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tempDir } from "./run-awl.js";

export interface LoadReport {
  files: string[];
  esModules: boolean;
  /** Node's built-in modules it loaded (`process.moduleLoadList`: `tty`, `internal/util/parse_args/parse_args`…). */
  builtins: string[];
}

/**
 * The environment that makes a run report (`env`), and the reader of the last run's report. `at: "prompt"`: what was
 * loaded when the interactive prompt was first written to the terminal, instead of as the process exits.
 */
export function loadReporter(options: { at?: "exit" | "prompt" } = {}): { env: Record<string, string>; read(): LoadReport } {
  const dir = tempDir("awl-load-report-");
  const report = join(dir, "report.json");
  const preload = join(dir, "report.cjs");
  const root = `${resolve(import.meta.dirname, "../..")}/`;
  const write = `() => require("node:fs").writeFileSync(${JSON.stringify(report)}, JSON.stringify({
  files: Object.keys(require.cache).filter((file) => file.startsWith(${JSON.stringify(root)})).map((file) => file.slice(${root.length})),
  esModules: process.moduleLoadList.includes("NativeModule internal/modules/esm/module_job"),
  builtins: process.moduleLoadList.filter((name) => name.startsWith("NativeModule ")).map((name) => name.slice(13)),
}))`;
  // The prompt as the line editor draws it (in synchronized output): the first write that holds it.
  const atPrompt = `const report = ${write};
const write = process.stdout.write;
let reported = false;
process.stdout.write = function (chunk, ...rest) {
  if (!reported && String(chunk).includes("\\x1b[?2026h> ")) { reported = true; report(); }
  return write.call(this, chunk, ...rest);
};
`;
  writeFileSync(preload, options.at === "prompt" ? atPrompt : `process.on("exit", ${write});\n`);
  return {
    env: { NODE_OPTIONS: `--require=${preload}` },
    read: () => JSON.parse(readFileSync(report, "utf8")) as LoadReport,
  };
}

/** A chunk's name without its hash (`dist/cli/chunks/open-Ab12_x-Z.cjs` → `open`), other paths as they are. */
export function chunkName(path: string): string {
  return path.replace(/^dist\/cli\/chunks\/(.*)-[\w-]{8}\.cjs$/, "$1");
}

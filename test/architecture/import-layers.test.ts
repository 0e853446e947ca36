// The shape of src/ (SPEC §1), kept by a test: no module imports itself back through others (an import circle;
// type-only and lazy `import()` count too, as a reader follows them), and each layer imports only downward: the
// library knows nothing of the terminal program built on it; the terminal UI (src/ui) nothing of the program's
// runtime assembly (src/runtime), commands and modes (src/cli) or ACP server (src/acp); the runtime nothing of the
// two front ends built on it (the commands and the ACP server), and the ACP server nothing of the commands.
import { readdirSync, readFileSync } from "node:fs";
import { join, posix, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "..", "src");

/** The text of each module of `root`, by its path relative to it. */
function readModules(root: string): Map<string, string> {
  const names = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
  return new Map(names.map((name) => [name.split(sep).join("/"), readFileSync(join(root, name), "utf8")]));
}

/** Each module and the modules of the same tree it imports (statically, lazily or for types only). */
function importGraph(modules: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [module, text] of modules) {
    const targets = ts.preProcessFile(text, true, true).importedFiles
      .filter((i) => i.fileName.startsWith("."))
      .map((i) => posix.join(posix.dirname(module), i.fileName).replace(/\.js$/, ".ts"))
      .filter((target) => modules.has(target));
    graph.set(module, [...new Set(targets)]);
  }
  return graph;
}

/** The import circles of `graph`: each strongly connected set of two or more modules, as one circle through it. */
function importCircles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (module: string): void => {
    index.set(module, index.size);
    low.set(module, index.get(module)!);
    stack.push(module);
    onStack.add(module);
    for (const next of graph.get(module) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(module, Math.min(low.get(module)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(module, Math.min(low.get(module)!, index.get(next)!));
    }
    if (low.get(module) !== index.get(module)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== module);
    if (members.length > 1) circles.push(circleThrough(graph, new Set(members)));
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return circles;
}

/** One circle inside the strongly connected `members`: from the first (in name order) back to it. */
function circleThrough(graph: Map<string, string[]>, members: Set<string>): string[] {
  const start = [...members].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let module = queue.shift(); module !== undefined; module = queue.shift()) {
    for (const next of graph.get(module) ?? []) {
      if (next === start) {
        const path = [start];
        for (let at = module; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (members.has(next) && !cameFrom.has(next)) {
        cameFrom.set(next, module);
        queue.push(next);
      }
    }
  }
  return [...members];
}

/** The top folder of a module (`ui/output/sink.ts` → `ui`); a file directly in src/ is its own. */
const folderOf = (module: string): string => module.split("/")[0]!.replace(/\.ts$/, "");

/** The imports of `graph` from a module in one of `from` to a module in one of `to`, as `a.ts → b.ts`. */
function importsBetween(graph: Map<string, string[]>, from: readonly string[], to: readonly string[]): string[] {
  return [...graph].flatMap(([module, targets]) =>
    from.includes(folderOf(module)) ? targets.filter((t) => to.includes(folderOf(t))).map((t) => `${module} → ${t}`) : []);
}

/** The terminal program: its commands and modes, its ACP server, the runtime both assemble, and the terminal UI. */
const PROGRAM = ["cli", "acp", "runtime", "ui"];

describe("src/ import layers", () => {
  const graph = importGraph(readModules(SRC));

  it("has no import circle", () => {
    expect(importCircles(graph).map((circle) => circle.join(" → "))).toEqual([]);
  });

  it("keeps the terminal UI (src/ui) free of the runtime (src/runtime), the commands and modes (src/cli) and the ACP server (src/acp)", () => {
    expect(importsBetween(graph, ["ui"], ["runtime", "cli", "acp"])).toEqual([]);
  });

  it("keeps the runtime assembly (src/runtime) free of the commands and modes (src/cli) and the ACP server (src/acp)", () => {
    expect(importsBetween(graph, ["runtime"], ["cli", "acp"])).toEqual([]);
  });

  it("keeps the ACP server (src/acp) free of the commands and modes (src/cli): it rests on the runtime", () => {
    expect(importsBetween(graph, ["acp"], ["cli"])).toEqual([]);
  });

  it("keeps the library free of the terminal program", () => {
    const library = [...new Set([...graph.keys()].map(folderOf))].filter((folder) => !PROGRAM.includes(folder));
    expect(importsBetween(graph, library, PROGRAM)).toEqual([]);
  });

  it("lets only the commands (src/cli) start the ACP server", () => {
    expect([...new Set(importsBetween(graph, ["cli"], ["acp"]).map((edge) => edge.split(" → ")[0]))]).toEqual(["cli/commands/acp.ts"]);
  });

  it("finds a circle, lazy and type-only imports included (the check itself)", () => {
    const circular = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(importCircles(circular)).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"]]);
    expect(importCircles(importGraph(new Map([["x.ts", 'const y = await import("./y.js");'], ["y.ts", 'import type { X } from "./x.js";']])))).toEqual([["x.ts", "y.ts", "x.ts"]]);
  });
});


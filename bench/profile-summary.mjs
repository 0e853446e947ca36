// A CPU profile's summary (`npm run bench -- startup --profile`): where a run of awl spends its main thread's
// time, by module (awl's own files, each package, Node's internals) and by function, self time, highest first.
// Not a bench itself (bench/run.mjs runs the *.bench.mjs files only).
import { readFileSync } from "node:fs";

/** The module a profile frame's URL belongs to: `awl:<file in dist>`, `<package>`, `node:<module>`, or what V8 calls it. */
function moduleOf(url, functionName) {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const own = /\/dist\/(.*)$/.exec(url);
  if (own) return `awl:${own[1]}`;
  return url.startsWith("node:") ? url : url.replace(/^file:\/\//, "");
}

/** Self time in ms by module and by function (top `count` of each) of a `.cpuprofile` file. */
export function summarizeProfile(file, count = 15) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfMs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  const modules = new Map();
  const functions = new Map();
  let total = 0;
  for (const [id, ms] of selfMs) {
    const { callFrame } = byId.get(id);
    const module = moduleOf(callFrame.url, callFrame.functionName);
    const fn = `${callFrame.functionName || "(anonymous)"} ${module}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ""}`;
    modules.set(module, (modules.get(module) ?? 0) + ms);
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
    total += ms;
  }
  const top = (map) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count);
  return { total, modules: top(modules), functions: top(functions) };
}

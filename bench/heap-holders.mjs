// What grew between two heap snapshots of one process, by what holds it: `node bench/heap-holders.mjs EARLY LATE [N]`
// prints the N (default 30) largest groups of objects alive in LATE and not in EARLY (compiled code left out: it
// grows while V8 optimises), each group named by the object of EARLY that reaches them first and the edge it reaches
// them by. V8 keeps an object's snapshot id for its life, so "not in EARLY" means made since. A list or map that
// keeps something per call shows as one large group, e.g. `object:Array@12 (property:taken of
// object:TurnCheckpoints@34) -element[]->`. Native objects (`synthetic:…`) get new ids in every snapshot, so what
// hangs below them counts as new each time. The budget bench leaves such pairs in its folder (tty-growth:
// tty-early/tty-late.heapsnapshot; growth: early/late.heapsnapshot).
import { readSnapshot } from "./heap-parts.mjs";

/** A snapshot's nodes and edges, read as this needs them. */
function load(file) {
  const { s, nf, ef, n, first, nodeTypes, edgeTypes, typeAt, nameAt, idAt, selfAt, edgeTypeAt, edgeNameAt, edgeToAt } = readSnapshot(file);
  const numbered = new Set(["element", "hidden"]);
  return {
    n,
    first,
    ef,
    id: (i) => s.nodes[i * nf + idAt],
    self: (i) => s.nodes[i * nf + selfAt],
    code: (i) => nodeTypes[s.nodes[i * nf + typeAt]] === "code",
    label: (i) => `${nodeTypes[s.nodes[i * nf + typeAt]]}:${String(s.strings[s.nodes[i * nf + nameAt]]).slice(0, 60)}@${s.nodes[i * nf + idAt]}`,
    to: (e) => s.edges[e + edgeToAt] / nf,
    weak: (e) => edgeTypes[s.edges[e + edgeTypeAt]] === "weak",
    edge: (e) => {
      const type = edgeTypes[s.edges[e + edgeTypeAt]];
      return numbered.has(type) ? `${type}[]` : `${type}:${String(s.strings[s.edges[e + edgeNameAt]]).slice(0, 50)}`;
    },
  };
}

const [earlyFile, lateFile, top = "30"] = process.argv.slice(2);
if (!lateFile) {
  console.error("usage: node bench/heap-holders.mjs EARLY.heapsnapshot LATE.heapsnapshot [N]");
  process.exit(2);
}
const early = load(earlyFile);
const before = new Set();
for (let i = 0; i < early.n; i++) before.add(early.id(i));
const late = load(lateFile);
// Breadth first from the root over strong edges: a new object met from an old one starts a group named by that
// holder; one met from a new object joins its group.
const group = new Array(late.n);
const parent = new Int32Array(late.n).fill(-1);
const parentEdge = new Int32Array(late.n);
/** An object with what reaches it first: `object:Array@12 (property:messages of object:Conversation@34)`. */
const named = (i) => (parent[i] < 0 ? late.label(i) : `${late.label(i)} (${late.edge(parentEdge[i])} of ${late.label(parent[i])})`);
const seen = new Uint8Array(late.n);
seen[0] = 1;
const queue = [0];
for (let head = 0; head < queue.length; head++) {
  const i = queue[head];
  for (let e = late.first[i]; e < late.first[i + 1]; e += late.ef) {
    const to = late.to(e);
    if (seen[to] || late.weak(e)) continue;
    seen[to] = 1;
    parent[to] = i;
    parentEdge[to] = e;
    queue.push(to);
    if (!before.has(late.id(to))) group[to] = before.has(late.id(i)) ? `${named(i)} -${late.edge(e)}->` : group[i];
  }
}
const sums = new Map();
for (let i = 0; i < late.n; i++) {
  if (group[i] === undefined || late.code(i)) continue;
  const sum = sums.get(group[i]) ?? { bytes: 0, objects: 0 };
  sum.bytes += late.self(i);
  sum.objects++;
  sums.set(group[i], sum);
}
console.log("    bytes  objects  held by");
for (const [holder, { bytes, objects }] of [...sums].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(top))) {
  console.log(`${String(bytes).padStart(9)} ${String(objects).padStart(8)}  ${holder}`);
}

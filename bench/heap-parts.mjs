// What a V8 heap snapshot (`v8.writeHeapSnapshot`) holds, in the parts the growth budget needs: everything live,
// the compiled code (it grows while V8 warms up, then levels off), what the conversation itself holds (its messages,
// their blocks and texts), what is kept per message beside it (entries of WeakMaps keyed by a message, e.g. the
// providers' wire JSON), and the rest: what a long run must not grow. Weak edges retain nothing.
import { readFileSync } from "node:fs";

/** Bytes of each part of the snapshot in `file`; `owner` names the conversation's class. */
export function heapParts(file, owner = "Conversation") {
  const { s, nf, ef, n, first, nodeTypes, edgeTypes, typeAt, nameAt, selfAt, edgeTypeAt, edgeNameAt, edgeToAt } = readSnapshot(file);
  const type = (i) => nodeTypes[s.nodes[i * nf + typeAt]];
  const self = (i) => s.nodes[i * nf + selfAt];
  const named = new Set(["property", "internal", "context", "shortcut"].map((t) => edgeTypes.indexOf(t)));
  const edgeName = (e) => (named.has(s.edges[e + edgeTypeAt]) ? String(s.strings[s.edges[e + edgeNameAt]]) : "");
  const weak = edgeTypes.indexOf("weak");
  /** Marks in `seen` (and sums) what `starts` reach over the edges `follow` lets through. */
  const reach = (starts, seen, follow) => {
    let bytes = 0;
    const stack = starts.filter((i) => !seen[i]);
    for (const i of stack) seen[i] = 1;
    while (stack.length > 0) {
      const i = stack.pop();
      bytes += self(i);
      for (let e = first[i]; e < first[i + 1]; e += ef) {
        const to = s.edges[e + edgeToAt] / nf;
        if (!seen[to] && s.edges[e + edgeTypeAt] !== weak && follow(e, to)) {
          seen[to] = 1;
          stack.push(to);
        }
      }
    }
    return bytes;
  };
  const alive = new Uint8Array(n);
  const live = reach([0], alive, () => true);
  let code = 0;
  for (let i = 0; i < n; i++) if (alive[i] && type(i) === "code") code += self(i);
  // Data only: never into code, functions, hidden classes or the runtime's own objects, nor up a prototype chain.
  const data = (e, to) => {
    const t = type(to);
    if (t === "code" || t === "closure" || t === "object shape" || t === "synthetic" || t === "native") return false;
    const name = edgeName(e);
    return name !== "map" && name !== "__proto__";
  };
  // A WeakMap entry shows as an edge from its key to its value, named "… part of key … pair in WeakMap …".
  const ownData = (e, to) => data(e, to) && !edgeName(e).includes("part of key");
  const owners = [];
  for (let i = 0; i < n; i++) if (type(i) === "object" && s.strings[s.nodes[i * nf + nameAt]] === owner) owners.push(i);
  const seen = new Uint8Array(n);
  const conversation = reach(owners, seen, ownData);
  // Then what the messages' WeakMap entries add (the conversation, already seen, stays out of it).
  const entries = [];
  for (let i = 0; i < n; i++) {
    if (!seen[i]) continue;
    for (let e = first[i]; e < first[i + 1]; e += ef) if (edgeName(e).includes("part of key")) entries.push(s.edges[e + edgeToAt] / nf);
  }
  const memo = reach(entries, seen, data);
  return { live, code, conversation, memo, rest: live - code - conversation - memo };
}

/**
 * The snapshot in `file` parsed, with the offsets of the node and edge fields, their type names, and each node's
 * first edge (`first[i]` to `first[i + 1]` are node i's edges in `s.edges`).
 */
export function readSnapshot(file) {
  const s = JSON.parse(readFileSync(file, "utf8"));
  const meta = s.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const [typeAt, nameAt, idAt, selfAt, countAt] = ["type", "name", "id", "self_size", "edge_count"].map((f) => meta.node_fields.indexOf(f));
  const [edgeTypeAt, edgeNameAt, edgeToAt] = ["type", "name_or_index", "to_node"].map((f) => meta.edge_fields.indexOf(f));
  const n = s.nodes.length / nf;
  const first = new Uint32Array(n + 1);
  for (let i = 0, e = 0; i < n; i++) {
    first[i] = e;
    e += s.nodes[i * nf + countAt] * ef;
    first[i + 1] = e;
  }
  return { s, nf, ef, n, first, nodeTypes: meta.node_types[0], edgeTypes: meta.edge_types[0], typeAt, nameAt, idAt, selfAt, edgeTypeAt, edgeNameAt, edgeToAt };
}

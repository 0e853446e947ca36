// The web (issue 28, bench targets): `awl.http.get` of a 1 MB body from a local server through a Lua tool call,
// beside Node's fetch alone in the same run (target ≤ 1.3×); the bundled `fetch` tool on a 200 KB article page
// (HTML to Markdown: ms, bytes in and out), first call (the HTML libraries load) and warm. Medians.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LuaPool } from "../dist/extensions/lua/pool.js";
import { median } from "./support.mjs";

const dir = mkdtempSync(join(tmpdir(), "awl-web-bench-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));

const MB = Buffer.alloc(1024 * 1024, "a");
const paragraph = (i) => `<p>Paragraph ${i}: ${"Ownership and borrowing keep memory safe without a garbage collector. ".repeat(6)}</p>\n`;
let article = `<!doctype html><html><head><title>A long article</title></head><body><nav>${'<a href="/x">nav</a> '.repeat(200)}</nav><article><h1>A long article</h1>\n`;
for (let i = 0; article.length < 200 * 1024; i++) article += paragraph(i) + (i % 10 === 0 ? `<h2>Part ${i / 10}</h2>\n<pre><code>let x = ${i};</code></pre>\n` : "");
article += "</article><footer>footer</footer></body></html>";

const server = createServer((req, res) => {
  if (req.url === "/mb") res.writeHead(200, { "content-type": "text/plain", "content-length": MB.length }).end(MB);
  else res.writeHead(200, { "content-type": "text/html" }).end(article);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const file = join(dir, "get.lua");
writeFileSync(file, `awl.register_tool("get", { type = "object" }, function(input)
  local r, err = awl.http.get(input.url, { max_bytes = 2 * 1024 * 1024 })
  if not r then error(err) end
  return tostring(#r.body)
end)`);
const pool = new LuaPool({ extensions: [{ name: "get", file, root: dir }, { name: "std.fetch", file: join(process.cwd(), "extensions/std/fetch.lua"), root: join(process.cwd(), "extensions/std") }], maxSlots: 1 });
const ctx = { cwd: dir, workspace: dir, home: dir, spill_dir: dir, result_limit: 10_000_000 };
const opts = { signal: new AbortController().signal, timeoutMs: 60_000 };
const call = (ext, tool, input) => pool.call(ext, tool, JSON.stringify(input), ctx, opts);

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
await call("get", "get", { url: `${base}/mb` }); // the worker and undici load
const viaLua = [];
const viaFetch = [];
for (let i = 0; i < RUNS; i++) {
  let t = performance.now();
  const out = await call("get", "get", { url: `${base}/mb` });
  viaLua.push(performance.now() - t);
  if (out.content !== String(MB.length)) throw new Error(`unexpected result: ${JSON.stringify(out).slice(0, 200)}`);
  t = performance.now();
  const body = await (await fetch(`${base}/mb`)).arrayBuffer();
  viaFetch.push(performance.now() - t);
  if (body.byteLength !== MB.length) throw new Error("fetch got a short body");
}

let t = performance.now();
const first = await call("std.fetch", "fetch", { url: `${base}/article`, max_length: 1_000_000 });
const firstMs = performance.now() - t;
const warm = [];
for (let i = 0; i < 5; i++) {
  t = performance.now();
  await call("std.fetch", "fetch", { url: `${base}/article?${i}`, max_length: 1_000_000 });
  warm.push(performance.now() - t);
}
await pool.close();
server.close();

const lua = median(viaLua);
const node = median(viaFetch);
const fmt = (n) => `${n.toFixed(1)} ms`;
console.log("## web (awl.http, fetch)\n");
console.log("| what | figure | target |\n| --- | --- | --- |");
console.log(`| awl.http.get of 1 MB through a Lua tool call (median of ${RUNS}) | ${fmt(lua)} | — |`);
console.log(`| Node's fetch of the same 1 MB, same run | ${fmt(node)} | — |`);
console.log(`| ratio | ${(lua / node).toFixed(2)}× | ≤ 1.3× |`);
console.log(`| fetch tool, 200 KB article → Markdown, first call (libraries load) | ${fmt(firstMs)}, ${article.length} B in → ${Buffer.byteLength(first.content ?? "")} B out | — |`);
console.log(`| fetch tool, the same page warm (median of 5) | ${fmt(median(warm))} | — |`);
console.log();

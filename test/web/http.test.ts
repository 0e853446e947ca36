// awl.http through the built `awl -p`: a Lua tool's requests go out from awl itself, each checked per host by the
// permission engine (a tool that declares `network`, even one allowed as a whole, reaches only the hosts a rule
// allows), with limits, charsets, spills and TLS against local servers only.
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox } from "../e2e/support.js";
import { loopbackAlias, startSite, testCertificates, type Site } from "./site.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

let site: Site;
let tlsSite: Site;
let caFile: string;
beforeAll(async () => {
  site = await startSite();
  const certs = testCertificates();
  caFile = certs.caFile;
  tlsSite = await startSite(certs);
  for (const s of [site, tlsSite]) {
    s.route("/weather", (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"city":"Oslo","temp":-3.5}'));
  }
  site.route("/echo", (req, res, body) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ method: req.method, body, type: req.headers["content-type"] })));
  site.route("/latin1", (_req, res) => res.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9])));
  site.route("/bad-utf8", (_req, res) => res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(Buffer.from([0x61, 0xff, 0x62])));
  site.route("/odd-charset", (_req, res) => res.writeHead(200, { "content-type": "text/plain; charset=klingon" }).end("plain"));
  site.route("/endless", (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    const chunk = "x".repeat(64 * 1024);
    const pump = () => {
      while (res.write(chunk)) {
        /* fill */
      }
    };
    res.on("drain", pump);
    res.on("close", () => res.off("drain", pump));
    pump();
  });
  site.route("/bomb", (_req, res) => res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" }).end(gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x61))));
  site.route("/slow", () => {
    /* never answers */
  });
  site.route("/png", (_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2])));
});
afterAll(async () => {
  await site.close();
  await tlsSite.close();
});

/** A tool that GETs its `url` argument and returns what awl.http gave, as JSON. */
const PROBE = `awl.register_tool { name = "probe", description = "GET a URL", kinds = { "network" },
  parameters = { type = "object", properties = { target = { type = "string" }, opts = { type = "object" } }, required = { "target" } },
  run = function(args)
    local opts = args.opts or {}
    opts.url = args.target
    local r, err, kind = awl.http.request(opts)
    if not r then return awl.json.encode({ error = err, kind = kind }) end
    local spilled = r.spill_file and io.open(r.spill_file, "rb")
    local body = #r.body <= 2000 and (r.binary and awl.base64.encode(r.body) or r.body) or nil
    return awl.json.encode({ status = r.status, ok = r.ok, body = body, length = #r.body, binary = r.binary,
      truncated = r.truncated, size = r.size, charset = r.charset, note = r.note, spill_size = spilled and #spilled:read("a") or nil,
      type = r.headers["content-type"], json = r.headers["content-type"] == "application/json" and r:json() or nil })
  end }
awl.register_tool { name = "post_it", description = "POST JSON", kinds = { "network" },
  parameters = { type = "object", properties = { url = { type = "string" } }, required = { "url" } },
  run = function(args)
    local r, err = awl.http.post(args.url, { hello = "world" })
    if not r then error(awl.tool_error(err)) end
    return r.body
  end }
`;

async function probe(url: string, flags: string[] = [], opts?: Record<string, unknown>, env: Record<string, string> = {}): Promise<any> {
  box.extension("probe.lua", PROBE);
  server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "probe", input: { target: url, ...(opts && { opts }) } }]) }, { body: openaiText("done") });
  const run = await box.awl(["--no-std-tools", "--trust-project", "-p", "go", "--allow", "probe", ...flags], { env: { ...providerEnv("openai", server.url), ...env } });
  expect(run.code, run.stderr).toBe(0);
  const content = server.requests.at(-1)!.json().messages.at(-1).content as string;
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

describe("awl.http: permission per host", () => {
  it("a tool allowed as a whole, declaring network, still cannot reach a host no rule allows; the message names the rule", async () => {
    const out = await probe(`${site.url}/weather`);
    expect(out.kind).toBe("denied");
    expect(out.error).toContain('the tool "probe" may not reach 127.0.0.1');
    expect(out.error).toContain("--allow 'network(127.0.0.1)'");
    expect(site.seen.some((r) => r.path === "/weather")).toBe(false);
  });

  it("a network rule for the host lets it through: status, headers, body and JSON", async () => {
    const out = await probe(`${site.url}/weather`, ["--allow", "network(127.0.0.1)"]);
    expect(out).toMatchObject({ status: 200, ok: true, type: "application/json", json: { city: "Oslo", temp: -3.5 }, truncated: false });
  });

  it("a rule for another host or another port does not; a deny rule beats an allow rule", async () => {
    expect((await probe(`${site.url}/weather`, ["--allow", "network(*.example.com)"])).kind).toBe("denied");
    expect((await probe(`${site.url}/weather`, ["--allow", "network(127.0.0.1:1)"])).kind).toBe("denied");
    const denied = await probe(`${site.url}/weather`, ["--allow", "network", "--deny", "network(127.0.0.1)"]);
    expect(denied.error).toContain('the rule "network(127.0.0.1)" denies');
  });

  it("loopback reached by a name other than the address needs a rule naming the address", async () => {
    const alias = loopbackAlias();
    if (!alias) return; // no such name in /etc/hosts here
    const out = await probe(`http://${alias}:${site.port}/weather`, ["--allow", `network(${alias})`]);
    if (!alias.includes(".")) {
      // A single-word name is no host pattern: the bare rule then is the only way, and still not enough.
      const bare = await probe(`http://${alias}:${site.port}/weather`, ["--allow", "network"]);
      expect(bare.error).toContain(`${alias} resolves to 127.0.0.1, which is a loopback address`);
      return;
    }
    expect(out.error).toContain(`${alias} resolves to 127.0.0.1, which is a loopback address`);
  });

  it("POST sends a table as JSON", async () => {
    box.extension("probe.lua", PROBE);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "post_it", input: { url: `${site.url}/echo` } }]) }, { body: openaiText("done") });
    const run = await box.awl(["--no-std-tools", "--trust-project", "-p", "go", "--allow", "post_it", "--allow", "network(127.0.0.1)"], { env: providerEnv("openai", server.url) });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(server.requests.at(-1)!.json().messages.at(-1).content)).toEqual({ method: "POST", body: '{"hello":"world"}', type: "application/json" });
  });
});

describe("awl.http: bodies", () => {
  const allow = ["--allow", "network(127.0.0.1)"];

  it("decodes the charset the server names; invalid bytes and unknown charsets are said, not dropped", async () => {
    expect(await probe(`${site.url}/latin1`, allow)).toMatchObject({ body: "café", charset: "windows-1252" });
    const bad = await probe(`${site.url}/bad-utf8`, allow);
    expect(bad.body).toBe("a\ufffdb");
    expect(bad.note).toContain("not valid utf-8");
    const odd = await probe(`${site.url}/odd-charset`, allow);
    expect(odd).toMatchObject({ body: "plain" });
    expect(odd.note).toContain('"klingon"');
  });

  it("binary bodies stay bytes", async () => {
    const out = await probe(`${site.url}/png`, allow);
    expect(out.binary).toBe(true);
    expect(Buffer.from(out.body, "base64")).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
  });

  it("an endless body stops at max_bytes", async () => {
    const cut = await probe(`${site.url}/endless`, allow, { max_bytes: 100000 });
    expect(cut).toMatchObject({ truncated: true, size: 100000, length: 100000 });
  });

  it("a gzip bomb stops at max_bytes after decompression", async () => {
    const out = await probe(`${site.url}/bomb`, allow, { max_bytes: 1000000 });
    expect(out).toMatchObject({ truncated: true, size: 1000000, length: 1000000 });
  });

  it("spills the whole body to a file on request, the result keeping max_bytes", async () => {
    site.route("/big", (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("y".repeat(3_000_000)));
    const out = await probe(`${site.url}/big`, allow, { max_bytes: 1000, spill: true });
    expect(out).toMatchObject({ truncated: false, size: 3_000_000, spill_size: 3_000_000, length: 1000 });
  });

  it("a slow server times out with a clear message", async () => {
    const out = await probe(`${site.url}/slow`, allow, { timeout_ms: 300 });
    expect(out).toEqual({ kind: "timeout", error: `http://127.0.0.1:${site.port} did not answer within 0.3 s` });
  });

  it("the call's abort (here its timeout) aborts the request: the server sees the connection closed before the turn goes on", async () => {
    let closed!: () => void;
    const closing = new Promise<void>((resolve) => (closed = resolve));
    site.route("/hang", (req) => req.socket.on("close", () => closed()));
    box.extension("probe.lua", PROBE);
    // The answer after the tool's result waits for the connection to close: a request left running would hold it 30 s.
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "probe", input: { target: `${site.url}/hang` } }]) }, { body: [{ data: openaiText("done"), after: closing }] });
    const run = await box.awl(["--no-std-tools", "--trust-project", "-p", "go", "--allow", "probe", ...allow, "--tool-timeout", "1500"], { env: providerEnv("openai", server.url) });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests.at(-1)!.json().messages.at(-1).content).toContain("timed out");
  }, 20_000);

  it("invalid URLs and other schemes are refused with what was wrong", async () => {
    expect(await probe("not a url", allow)).toEqual({ kind: "invalid", error: '"not a url" is not a valid URL' });
    expect((await probe("file:///etc/passwd", allow)).error).toContain("reaches http:// and https:// URLs only, not file:");
  });
});

describe("awl.http: TLS", () => {
  it("trusts a CA given in NODE_EXTRA_CA_CERTS; without it, a clear TLS error and no way around it", async () => {
    const ok = await probe(`${tlsSite.url}/weather`, ["--allow", "network(127.0.0.1)"], undefined, { NODE_EXTRA_CA_CERTS: caFile });
    expect(ok).toMatchObject({ status: 200, json: { city: "Oslo" } });
    const bad = await probe(`${tlsSite.url}/weather`, ["--allow", "network(127.0.0.1)"]);
    expect(bad.kind).toBe("tls");
    expect(bad.error).toContain("TLS error");
    expect(bad.error).toContain("NODE_EXTRA_CA_CERTS");
    expect(readFileSync(caFile, "utf8")).toContain("BEGIN CERTIFICATE");
  });
});

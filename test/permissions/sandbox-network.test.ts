// The exec sandbox's network follows the per-host `network` rules (docs/permissions.md, "Sandbox"): a sandboxed
// command reaches an allowed host through awl's proxy (plain HTTP and CONNECT) and not another; a denied request
// names the rule to add; a program that ignores the proxy variables, or speaks raw TCP, reaches nothing; the
// relay to the proxy is no way to a Unix socket or to the machine's loopback. Real bubblewrap (.ci/run installs it).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { callTool, textOf, useSandbox } from "../std/support.js";

const env = useSandbox();
const servers: (Server | HttpServer)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

/** An HTTP server on `address` (a loopback address of its own: 127.0.0.2, 127.0.0.3) that counts its requests. */
async function site(address: string, body: string): Promise<{ url: string; port: number; requests: () => number }> {
  let requests = 0;
  const server = createHttpServer((_req, res) => {
    requests++;
    res.end(body);
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, address, done));
  const port = (server.address() as { port: number }).port;
  return { url: `http://${address}:${port}/`, port, requests: () => requests };
}

/** The user config's permissions, then a sandboxed `bash` call of `command`: its output. */
async function boxedWith(permissions: object, command: string): Promise<string> {
  const dir = join(env.box.home, ".config", "awl");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify({ permissions }));
  try {
    return textOf((await callTool(env.box, "bash", { command }, ["--sandbox"])).outcome);
  } finally {
    rmSync(join(dir, "config.json"), { force: true });
  }
}

/** curl's status code for `url` (000 when it got no answer). */
const status = (url: string, flags = "") => `curl -s ${flags} -o /dev/null -w '%{http_code}\\n' ${url}`;

describe("--sandbox network", () => {
  it("a command reaches the host a rule allows, over plain HTTP and through CONNECT, and not another host", async () => {
    const allowed = await site("127.0.0.2", "allowed\n");
    const other = await site("127.0.0.3", "other\n");
    const text = await boxedWith({ allow: ["network(127.0.0.2)"] }, `curl -sS ${allowed.url}; curl -sS --proxytunnel ${allowed.url}; ${status(other.url)}; ${status(other.url, "--proxytunnel")}`);
    expect(text).toBe("allowed\nallowed\n403\n000\n[exit code 56]"); // 56: curl's "CONNECT tunnel failed"
    expect(allowed.requests()).toBe(2);
    expect(other.requests()).toBe(0);
  }, 120_000);

  it("a refused request says why and names the rule to add (CONNECT's status line, a plain request's body)", async () => {
    const other = await site("127.0.0.3", "other\n");
    const text = await boxedWith({ allow: ["network(127.0.0.2)"] }, `curl -sS -v --proxytunnel ${other.url} 2>&1 | grep '^< HTTP'; curl -sS ${other.url}`);
    expect(text).toContain(`< HTTP/1.1 403 Forbidden (awl sandbox: a program in the sandbox may not reach 127.0.0.3: no rule allows reaching 127.0.0.3; to allow it, add "network(127.0.0.3)"`);
    expect(text).toContain(`awl sandbox: a program in the sandbox may not reach 127.0.0.3: no rule allows reaching 127.0.0.3; to allow it, add "network(127.0.0.3)" to "permissions.allow" in your config, or run with --allow 'network(127.0.0.3)'\n`);
    expect(other.requests()).toBe(0);
  }, 120_000);

  it("a program that ignores the proxy variables, or speaks raw TCP, reaches nothing, not even an allowed host", async () => {
    const allowed = await site("127.0.0.2", "allowed\n");
    const fetchDirect = `node -e 'fetch(${JSON.stringify(allowed.url)}).then((r) => r.text()).then(console.log, (e) => console.log("fetch failed", e.cause?.code))'`;
    const rawTcp = `(exec 3<>/dev/tcp/127.0.0.2/${allowed.port} && echo connected) 2>/dev/null || echo refused`;
    const text = await boxedWith({ allow: ["network(127.0.0.2)"] }, `${status(allowed.url, "--noproxy '*'")}; ${fetchDirect}; ${rawTcp}; curl -sS ${allowed.url}`);
    expect(text).toBe("000\nfetch failed ECONNREFUSED\nrefused\nallowed\n[exit code 0]");
    expect(allowed.requests()).toBe(1);
  }, 120_000);

  it("a command rule opens every host but a loopback or private one, which only a rule naming it opens; a deny rule for the program wins", async () => {
    const allowed = await site("127.0.0.2", "allowed\n");
    const named = await boxedWith({ allow: ["network(curl:*)"] }, `curl -sS ${allowed.url}`);
    expect(named).toContain("awl sandbox: a program in the sandbox may not reach 127.0.0.2: 127.0.0.2 is a loopback address");
    expect(await boxedWith({ allow: ["network(curl:*)", "network(127.0.0.2)"] }, `curl -sS ${allowed.url}`)).toBe("allowed\n[exit code 0]");
    expect(await boxedWith({ allow: ["network(127.0.0.2)"], deny: ["network(curl:*)"] }, status(allowed.url))).toBe("000\n[exit code 7]"); // 7: no proxy, nothing listens
    expect(await boxedWith({ allow: ["network"], deny: ["network(127.0.0.2)"] }, status(allowed.url))).toBe("403\n[exit code 0]");
    expect(allowed.requests()).toBe(1);
  }, 120_000);

  it("loopback inside the sandbox stays the sandbox's own; bypass mode opens no host", async () => {
    const host = await site("127.0.0.1", "machine\n");
    const text = await boxedWith({ allow: ["network(127.0.0.2)"], default_mode: "bypass" }, `${status(host.url)}; ${status(`http://127.0.0.4:${host.port}/`)}`);
    expect(text).toBe("000\n403\n[exit code 0]");
    expect(host.requests()).toBe(0);
  }, 120_000);

  it("the relay is no way to a Unix socket: the command gets no extra descriptor and still cannot make one", async () => {
    const path = join(tmpdir(), `awl-daemon-${process.pid}-${Date.now()}.sock`);
    let connections = 0;
    const daemon = createServer((socket) => {
      connections++;
      socket.end("daemon\n");
    });
    servers.push(daemon);
    await new Promise<void>((done) => daemon.listen(path, done));
    const connect = `node -e 'require("net").connect(${JSON.stringify(path)}).on("data", (d) => process.stdout.write(d)).on("error", (e) => console.log(e.code))'`;
    const text = await boxedWith({ allow: ["network(127.0.0.2)"] }, `find /proc/self/fd/ -lname 'socket:*' ! -name 0 ! -name 1 ! -name 2 | wc -l; ${connect}; ${status(`--unix-socket ${path} http://127.0.0.2/`)}`);
    expect(text).toBe("0\nEPERM\n000\n[exit code 7]");
    expect(connections).toBe(0);
  }, 120_000);
});

// Host rules (`network(api.github.com)`): what reads as a host, what each pattern covers, the engine's decisions for
// awl.http and a network tool's `url`, and which addresses count as loopback or private (tried with the spellings
// an attacker would use).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PermissionEngine, type PermissionMode } from "../../src/permissions/engine.js";
import { hostMatches, parseHostPattern } from "../../src/permissions/host-rules.js";
import { parseRule, type RuleAction } from "../../src/permissions/rules.js";
import { nonPublicKind } from "../../src/web/addresses.js";
import { tempDir } from "../support/temp-dir.js";

const ws = tempDir("awl-hosts-");

function engine(rules: Partial<Record<RuleAction, string[]>>, mode: PermissionMode = "default"): PermissionEngine {
  const parsed = (Object.entries(rules) as [RuleAction, string[]][]).flatMap(([action, texts]) =>
    texts.map((text) => {
      const r = parseRule(text, action, { kind: "flag", flag: action === "deny" ? "--deny" : "--allow" }, ws, ws);
      if (!r.ok) throw new Error(r.message);
      return r.rule;
    }),
  );
  return new PermissionEngine({ workspace: ws, home: ws, mode, rules: parsed });
}

const fetchTool = { name: "fetch", kinds: ["network"] };
const url = (text: string) => new URL(text);

describe("host patterns", () => {
  it("reads names with a dot, localhost, addresses, *. and :port as hosts; commands stay commands", () => {
    expect(parseHostPattern("api.github.com")).toEqual({ host: "api.github.com", below: false });
    expect(parseHostPattern("*.Example.COM.")).toEqual({ host: "example.com", below: true });
    expect(parseHostPattern("localhost:8080")).toEqual({ host: "localhost", below: false, port: 8080 });
    expect(parseHostPattern("[::1]:443")).toEqual({ host: "::1", below: false, port: 443 });
    expect(parseHostPattern("127.0.0.1")).toEqual({ host: "127.0.0.1", below: false });
    for (const command of ["curl", "curl:*", "npm install:*", "git fetch", "node -e:*", "x.com:99999", "*"]) expect(parseHostPattern(command)).toBeUndefined();
  });

  it("*. covers names below only; a port pins the port; case and a trailing dot do not matter", () => {
    const below = parseHostPattern("*.example.com")!;
    expect(hostMatches(below, "a.example.com", 443)).toBe(true);
    expect(hostMatches(below, "a.b.EXAMPLE.com.", 80)).toBe(true);
    expect(hostMatches(below, "example.com", 443)).toBe(false);
    expect(hostMatches(below, "evilexample.com", 443)).toBe(false);
    expect(hostMatches(below, "example.com.evil.net", 443)).toBe(false);
    const port = parseHostPattern("localhost:8080")!;
    expect(hostMatches(port, "localhost", 8080)).toBe(true);
    expect(hostMatches(port, "localhost", 8081)).toBe(false);
  });
});

describe("decideHost (awl.http)", () => {
  it("asks when no rule decides, offering network(HOST); allow, ask and deny rules decide; deny wins", () => {
    const none = engine({}).decideHost(url("https://api.github.com/x"));
    expect(none).toMatchObject({ action: "ask", allowRules: ["network(api.github.com)"] });
    expect(engine({ allow: ["network(*.github.com)"] }).decideHost(url("https://api.github.com/")).action).toBe("allow");
    expect(engine({ allow: ["network"], deny: ["network(api.github.com)"] }).decideHost(url("https://API.github.com./")).action).toBe("deny");
    expect(engine({ allow: ["network"], ask: ["network(*.github.com)"] }).decideHost(url("https://api.github.com/")).action).toBe("ask");
  });

  it("a * rule, a tool allow rule and command-pattern network rules open no host; bypass does, but not past a deny", () => {
    expect(engine({ allow: ["*"] }).decideHost(url("https://x.org/")).action).toBe("ask");
    expect(engine({ allow: ["network(curl:*)"] }).decideHost(url("https://x.org/")).action).toBe("ask");
    expect(engine({}, "bypass").decideHost(url("https://x.org/")).action).toBe("allow");
    expect(engine({ deny: ["network(x.org)"] }, "bypass").decideHost(url("https://x.org/")).action).toBe("deny");
  });
});

describe("a network tool's url argument", () => {
  it("is decided by its host, and carries the host for the call", () => {
    const asked = engine({}).decide(fetchTool, { url: "https://docs.python.org/3/" });
    expect(asked).toMatchObject({ action: "ask", allowRules: ["network(docs.python.org)"], hosts: ["docs.python.org"] });
    expect(engine({ allow: ["network(docs.python.org)"] }).decide(fetchTool, { url: "https://docs.python.org/3/" }).action).toBe("allow");
    expect(engine({ allow: ["fetch"] }).decide(fetchTool, { url: "https://anything.org/" }).action).toBe("allow");
    // ...but not a loopback or private address written in the URL: only a network rule naming it, or an answer.
    expect(engine({ allow: ["fetch"] }).decide(fetchTool, { url: "http://127.0.0.1:8080/" })).toMatchObject({ action: "ask", allowRules: ["network(127.0.0.1)"] });
    expect(engine({ allow: ["fetch"] }).decide(fetchTool, { url: "http://[::ffff:10.0.0.1]/" }).action).toBe("ask");
    expect(engine({ allow: ["fetch"] }).decide(fetchTool, { url: "http://localhost:3000/" }).action).toBe("ask");
    expect(engine({ allow: ["network(127.0.0.1)"] }).decide(fetchTool, { url: "http://127.0.0.1:8080/" }).action).toBe("allow");
    expect(engine({ allow: ["fetch"], ask: ["network(anything.org)"] }).decide(fetchTool, { url: "https://anything.org/" }).action).toBe("ask");
    expect(engine({ allow: ["network"], deny: ["fetch"] }).decide(fetchTool, { url: "https://anything.org/" }).action).toBe("deny");
  });

  it("denies what is no http(s) URL", () => {
    expect(engine({ allow: ["fetch"] }).decide(fetchTool, { url: "file:///etc/passwd" })).toMatchObject({ action: "deny", reason: expect.stringContaining("not file:") });
    expect(engine({ allow: ["fetch"] }).decide(fetchTool, { url: "not a url" }).action).toBe("deny");
  });
});

describe("non-public addresses", () => {
  it("knows loopback, private, link-local and their IPv6 and mapped spellings", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1", "0:0:0:0:0:ffff:7f00:1", "[::1]"]) expect(nonPublicKind(a)).toBe("loopback");
    for (const a of ["10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "fd00::1", "::ffff:10.0.0.1"]) expect(nonPublicKind(a)).toBe("private");
    for (const a of ["169.254.169.254", "fe80::1"]) expect(nonPublicKind(a)).toBe("link-local");
    expect(nonPublicKind("0.0.0.0")).toBe("unspecified");
    expect(nonPublicKind("::")).toBe("unspecified");
    for (const a of ["8.8.8.8", "172.32.0.1", "2606:4700::1111", "100.128.0.1"]) expect(nonPublicKind(a)).toBeUndefined();
  });

  it("are refused unless a rule names the address (or the host is the address or localhost)", () => {
    const e = engine({ allow: ["network(rebind.example.com)"] });
    expect(e.addressRefusal(url("http://rebind.example.com/"), "127.0.0.1")).toContain("rebind.example.com resolves to 127.0.0.1, which is a loopback address");
    expect(e.addressRefusal(url("http://rebind.example.com/"), "93.184.216.34")).toBeUndefined();
    expect(e.addressRefusal(url("http://rebind.example.com/"), "127.0.0.1", ["rebind.example.com"])).toBeDefined();
    expect(engine({ allow: ["network(127.0.0.1)"] }).addressRefusal(url("http://rebind.example.com/"), "127.0.0.1")).toBeUndefined();
    expect(engine({ allow: ["network(localhost)"] }).addressRefusal(url("http://localhost:3000/"), "::1")).toBeUndefined();
    expect(engine({}).addressRefusal(url("http://127.0.0.1:3000/"), "127.0.0.1", ["127.0.0.1"])).toBeUndefined();
    expect(engine({ allow: ["network"] }).addressRefusal(url("http://169.254.169.254/"), "169.254.169.254")).toContain("link-local");
    expect(engine({ allow: ["network(127.0.0.1)"], deny: ["network(127.0.0.1:22)"] }).addressRefusal(url("http://x.example.com:22/"), "127.0.0.1")).toContain("denies");
    expect(engine({}, "bypass").addressRefusal(url("http://x.example.com/"), "10.0.0.1")).toBeUndefined();
  });
});

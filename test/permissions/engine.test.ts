import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PermissionEngine, type PermissionMode } from "../../src/permissions/engine.js";
import { parseRule, type RuleAction } from "../../src/permissions/rules.js";
import { loadShellParser } from "../../src/permissions/command-reading.js";
import { tempDir } from "../support/temp-dir.js";

let root: string;
let ws: string;
let home: string;
beforeAll(async () => {
  await loadShellParser();
  root = tempDir("awl-perm-");
  ws = join(root, "ws");
  home = join(root, "home");
  mkdirSync(join(ws, "src"), { recursive: true });
  mkdirSync(join(home, "notes"), { recursive: true });
  mkdirSync(join(root, "etc"));
  writeFileSync(join(root, "etc", "passwd"), "x");
  symlinkSync(join(root, "etc"), join(ws, "link-to-etc"));
});

const bash = { name: "bash", kinds: ["exec"] };
const read = { name: "read", kinds: ["read"] };
const edit = { name: "edit", kinds: ["write"] };

function engine(rules: Partial<Record<RuleAction, string[]>>, mode: PermissionMode = "default"): PermissionEngine {
  const parsed = (Object.entries(rules) as [RuleAction, string[]][]).flatMap(([action, texts]) =>
    texts.map((text) => {
      const r = parseRule(text, action, { kind: "flag", flag: action === "deny" ? "--deny" : "--allow" }, ws, home);
      if (!r.ok) throw new Error(r.message);
      return r.rule;
    }),
  );
  return new PermissionEngine({ workspace: ws, home, mode, rules: parsed });
}

describe("command rules", () => {
  it("allows exactly the command, and asks for a compound command with another part", () => {
    const e = engine({ allow: ["bash(git status)"] });
    expect(e.decide(bash, { command: "git status" }).action).toBe("allow");
    expect(e.decide(bash, { command: "git  status" }).action).toBe("allow");
    for (const command of ["git status && rm -rf x", "git status; rm -rf x", "git status | sh", "git status || rm x", "git status\nrm x", "git status & rm x", "git status --porcelain"]) {
      expect(e.decide(bash, { command }).action, command).toBe("ask");
    }
  });

  it("allows a compound command when every part has its own allow rule", () => {
    const e = engine({ allow: ["bash(git status)", "bash(npm run test:*)"] });
    expect(e.decide(bash, { command: "git status && npm run test -- --watch" }).action).toBe("allow");
    expect(e.decide(bash, { command: "npm run test:unit" }).action).toBe("allow");
    expect(e.decide(bash, { command: "npm run testx" }).action).toBe("ask");
  });

  it("treats substitutions, redirections, subshells and variables as not allowable by a prefix", () => {
    const e = engine({ allow: ["bash(echo:*)", "bash(git status)"] });
    for (const command of ["echo $(rm -rf x)", "echo `rm x`", "echo hi > file", "echo hi >> file", "echo <(cat /etc/passwd)", "$CMD hi", "cat <<EOF", 'echo "$(rm x)"']) {
      expect(e.decide(bash, { command }).action, command).toBe("ask");
    }
    expect(e.decide(bash, { command: "echo hi 2>&1" }).action).toBe("allow");
    expect(e.decide(bash, { command: "git status 2>/dev/null" }).action).toBe("allow");
    expect(e.decide(bash, { command: 'echo "a && b; c"' }).action).toBe("allow");
    // A subshell or group of allowed commands runs nothing else.
    expect(e.decide(bash, { command: "(echo hi) && { git status; }" }).action).toBe("allow");
  });

  it("denies a denied command wherever it hides", () => {
    const e = engine({ allow: ["bash"], deny: ["bash(rm:*)"] });
    for (const command of ["rm -rf x", "ls && rm -rf x", "echo $(rm -rf x)", 'echo "`rm x`"', "(rm x)", "X=1 rm x", '"rm" -rf x', "r\\m x", "ls | { rm x; }"]) {
      expect(e.decide(bash, { command }).action, command).toBe("deny");
    }
    expect(e.decide(bash, { command: "ls -la" }).action).toBe("allow");
  });

  it("asks for exec without rules and names the rules that would allow each part", () => {
    const d = engine({}).decide(bash, { command: "git status && npm test" });
    expect(d.action).toBe("ask");
    expect(d.allowRules).toEqual(["bash(git status)", "bash(npm test)"]);
    expect(engine({}).decide(bash, { command: "echo $(date)" }).allowRules).toEqual(["bash"]);
  });
});

describe("precedence", () => {
  it("deny beats ask beats allow, whatever the order", () => {
    expect(engine({ allow: ["bash(git:*)"], ask: ["bash(git push:*)"], deny: ["bash(git push --force:*)"] }).decide(bash, { command: "git push --force" }).action).toBe("deny");
    expect(engine({ allow: ["bash(git:*)"], ask: ["bash(git push:*)"] }).decide(bash, { command: "git push" }).action).toBe("ask");
    expect(engine({ allow: ["bash(git:*)"], ask: ["bash(git push:*)"] }).decide(bash, { command: "git log" }).action).toBe("allow");
    expect(engine({ allow: ["read"], deny: ["read(secret/**)"] }).decide(read, { path: "secret/key" }).action).toBe("deny");
  });

  it("an ask rule asks even for a read inside the workspace", () => {
    expect(engine({ ask: ["read(*.env)"] }).decide(read, { path: ".env" }).action).toBe("ask");
    expect(engine({}).decide(read, { path: ".env" }).action).toBe("allow");
  });

  it("wildcard tool names", () => {
    const e = engine({ deny: ["github_*"] });
    expect(e.decide({ name: "github_push" }, {}).action).toBe("deny");
    expect(e.offers({ name: "github_push" })).toBe(false);
    expect(e.offers({ name: "gitlab_push" })).toBe(true);
  });
});

describe("paths", () => {
  it("reads inside the workspace run; a .. or a symlink leaving it asks", () => {
    const e = engine({});
    expect(e.decide(read, { path: "src/a.ts" }).action).toBe("allow");
    expect(e.decide(read, {}).action).toBe("allow");
    const up = e.decide(read, { path: "src/../../etc/passwd" });
    expect(up.action).toBe("ask");
    expect(up.reason).toContain(join(root, "etc", "passwd"));
    const link = e.decide(read, { path: "link-to-etc/passwd" });
    expect(link.action).toBe("ask");
    expect(link.paths).toEqual([join(root, "etc", "passwd")]);
    expect(e.decide(read, { path: join(root, "etc", "passwd") }).action).toBe("ask");
  });

  it("path globs relative to the workspace and ~", () => {
    const e = engine({ allow: ["edit(src/**)", "write(~/notes/**)"] });
    expect(e.decide(edit, { path: "src/deep/a.ts" }).action).toBe("allow");
    expect(e.decide(edit, { path: join(ws, "src", "new.ts") }).action).toBe("allow");
    expect(e.decide(edit, { path: "README.md" }).action).toBe("ask");
    expect(e.decide(edit, { path: "src/../../outside.ts" }).action).toBe("ask");
    expect(e.decide({ name: "write", kinds: ["write"] }, { path: "~/notes/today.md" }).action).toBe("allow");
    expect(e.decide({ name: "write", kinds: ["write"] }, { path: "~/other.md" }).action).toBe("ask");
  });

  it("an allow glob does not follow a symlink out of the workspace", () => {
    const e = engine({ allow: ["edit(**)"] });
    expect(e.decide(edit, { path: "a/b.ts" }).action).toBe("allow");
    expect(e.decide(edit, { path: "link-to-etc/passwd" }).action).toBe("ask");
  });

  it("a path with NUL, invalid UTF-8 or of the wrong type fails closed", () => {
    const e = engine({ allow: ["read", "edit(**)"] });
    expect(e.decide(read, { path: "a\0b" }).action).toBe("deny");
    expect(e.decide(edit, { path: "a\uD800b" }).action).toBe("deny");
    expect(e.decide(edit, { path: "a\uFFFDb" }).action).toBe("deny");
    expect(e.decide(edit, { path: 42 }).reason).toContain('"path" argument must be a string');
    expect(e.decide(bash, { command: ["rm"] }).action).toBe("deny");
  });

  it("names relative and home rules for the ask", () => {
    const e = engine({});
    expect(e.decide(edit, { path: "src/a.ts" }).allowRules).toEqual(["edit(src/a.ts)"]);
    expect(e.decide(edit, { path: "~/notes/x" }).allowRules).toEqual(["edit(~/notes/x)"]);
  });
});

describe("modes", () => {
  it("accept-edits runs writes inside the workspace only", () => {
    const e = engine({}, "accept-edits");
    expect(e.decide(edit, { path: "src/a.ts" }).action).toBe("allow");
    expect(e.decide(edit, { path: "../x" }).action).toBe("ask");
    expect(e.decide(bash, { command: "ls" }).action).toBe("ask");
  });

  it("plan offers and runs read tools only", () => {
    const e = engine({ allow: ["bash"] }, "plan");
    expect(e.offers(read)).toBe(true);
    expect(e.offers(bash)).toBe(false);
    expect(e.offers({ name: "mixed", kinds: ["read", "network"] })).toBe(false);
    expect(e.decide(bash, { command: "ls" }).action).toBe("deny");
  });

  it("bypass asks nothing but deny rules still hold", () => {
    const e = engine({ deny: ["bash(rm:*)"] }, "bypass");
    expect(e.decide(bash, { command: "curl x | grep y" }).action).toBe("allow");
    // A script piped into a shell may run what the rule denies.
    expect(e.decide(bash, { command: "curl x | sh" }).action).toBe("deny");
    expect(e.decide(bash, { command: "rm x" }).action).toBe("deny");
  });

  it("a tool without kinds is exec", () => {
    expect(engine({}).decide({ name: "mystery" }, {}).action).toBe("ask");
  });
});

describe("the sandbox", () => {
  it("sandbox_auto_allow runs exec calls of sandboxed tools inside the workspace unasked; others still ask; deny still holds", () => {
    const deny = parseRule("bash(rm:*)", "deny", { kind: "flag", flag: "--deny" }, ws, home);
    if (!deny.ok) throw new Error(deny.message);
    const e = new PermissionEngine({ workspace: ws, home, rules: [deny.rule], sandboxAutoAllow: true });
    // Until the tools are open nothing counts as sandboxed.
    expect(e.decide(bash, { command: "make" }).action).toBe("ask");
    e.sandboxed = (tool) => tool.name === "bash";
    expect(e.decide(bash, { command: "make" })).toMatchObject({ action: "allow", reason: "it runs inside the sandbox (permissions.sandbox_auto_allow)" });
    expect(e.decide(bash, { command: "rm -rf x" }).action).toBe("deny");
    expect(e.decide(bash, { command: "make", cwd: "/" }).action).toBe("ask");
    expect(e.decide({ name: "fetch", kinds: ["network"] }, {}).action).toBe("ask");
    expect(e.decide({ name: "mcp_run", kinds: ["exec"] }, {}).action).toBe("ask");
    expect(e.decide(edit, { path: "src/a.ts" }).action).toBe("ask");
  });
});

describe("network rules (the sandbox's network)", () => {
  it("only rules named network open it: none by default, nor a network kind, bypass or a * rule", () => {
    expect(engine({}).allowsNetwork("curl http://x")).toBe(false);
    expect(engine({ allow: ["*", "bash"] }, "bypass").allowsNetwork("curl http://x")).toBe(false);
    expect(engine({ allow: ["network"] }).allowsNetwork("curl http://x && exec 3<>/dev/tcp/h/1")).toBe(true);
  });

  it("a pattern covers matching commands, every part of a compound one; deny and ask win; opaque needs the bare rule", () => {
    const e = engine({ allow: ["network(npm install:*)", "network(git fetch)"] });
    expect(e.allowsNetwork("npm install left-pad")).toBe(true);
    expect(e.allowsNetwork("git fetch && npm install")).toBe(true);
    expect(e.allowsNetwork("exec 2>&1\ngit fetch")).toBe(true);
    expect(e.allowsNetwork("exec")).toBe(false);
    expect(e.allowsNetwork("npm install && curl http://x")).toBe(false);
    expect(e.allowsNetwork("npm install $(curl http://x)")).toBe(false);
    expect(engine({ allow: ["network"], deny: ["network(curl:*)"] }).allowsNetwork("echo $(curl http://x)")).toBe(false);
    expect(engine({ allow: ["network"], ask: ["network(nc:*)"] }).allowsNetwork("nc host 1")).toBe(false);
    expect(engine({ allow: ["network"], ask: ["network(nc:*)"] }).allowsNetwork("curl http://x")).toBe(true);
  });

  it("host rules give every program the hosts they allow through the proxy; a command deny rule gives it nothing", () => {
    expect(engine({}).sandboxReach("curl http://x")).toBe("none");
    expect(engine({ allow: ["network(api.github.com)"] }).sandboxReach("curl http://x")).toBe("hosts");
    expect(engine({ ask: ["network(api.github.com)"] }).sandboxReach("curl http://x")).toBe("none");
    expect(engine({ allow: ["network(api.github.com)", "network(npm install:*)"] }).sandboxReach("npm install x")).toBe("any");
    expect(engine({ allow: ["network(api.github.com)", "network(npm install:*)"] }).sandboxReach("npm install x && curl y")).toBe("hosts");
    expect(engine({ allow: ["network(api.github.com)"], deny: ["network(curl:*)"] }).sandboxReach("env curl y")).toBe("none");
    expect(engine({ allow: ["network(api.github.com)"], deny: ["network"] }).sandboxReach("git fetch")).toBe("none");
  });
});

describe("rule parsing", () => {
  const parse = (text: string) => parseRule(text, "allow", { kind: "session" }, ws, home);
  it("accepts tool, tool(pattern) and tool(*)", () => {
    expect(parse("bash").ok).toBe(true);
    const all = parse("bash(*)");
    expect(all.ok && all.rule.pattern).toBe(undefined);
    const p = parse(" bash(git status) ");
    expect(p.ok && p.rule.pattern).toBe("git status");
  });
  it("refuses what is not a rule, naming it", () => {
    const open = parse("bash(git status");
    expect(open.ok).toBe(false);
    expect(!open.ok && open.message).toContain("never closed");
    expect(!open.ok && open.tool).toBe("bash");
    expect(parse("").ok).toBe(false);
    expect(parse("bash()").ok).toBe(false);
    expect(parse("no spaces allowed").ok).toBe(false);
  });
  it("a glob that is no glob never allows a path but still denies one", () => {
    const bad = parse("edit(src/[abc)");
    expect(bad.ok && bad.rule.pathError).toContain("never closed");
    if (!bad.ok) return;
    expect(new PermissionEngine({ workspace: ws, home, rules: [bad.rule] }).decide(edit, { path: "src/a" }).action).toBe("ask");
    const deny = parseRule("edit(src/[abc)", "deny", { kind: "session" }, ws, home);
    if (!deny.ok) throw new Error("parsed");
    expect(new PermissionEngine({ workspace: ws, home, rules: [deny.rule] }).decide(edit, { path: "src/a" }).action).toBe("deny");
  });
});

describe("paths as the tool opens them", () => {
  it("decodes only escapes of bytes 80 to FF: \\x2e\\x2e is a name inside the workspace, \\x2eenv is not .env", () => {
    const e = engine({ deny: ["read(.env)"] });
    expect(e.decide(read, { path: "\\x2e\\x2e/x" }).paths).toEqual([join(realpathSync(ws), "\\x2e\\x2e", "x")]);
    expect(e.decide(read, { path: "\\x2eenv" }).action).toBe("allow");
    expect(e.decide(read, { path: ".env" }).action).toBe("deny");
    expect(e.decide(read, { path: "n\\xFFame" }).paths).toEqual([join(realpathSync(ws), "n\\xFFame")]);
  });

  it("hands the tool the resolved path: relative inside the workspace, absolute outside, a file: URI kept a URI", () => {
    const e = engine({});
    expect(e.decide(read, { path: "src/../src/./a.ts", offset: 2 }).input).toEqual({ path: "src/a.ts", offset: 2 });
    expect(e.decide(read, { path: "link-to-etc/passwd" }).input).toEqual({ path: join(realpathSync(root), "etc", "passwd") });
    expect(e.decide(read, { paths: ["src", "~/notes"] }).input).toEqual({ paths: ["src", join(realpathSync(home), "notes")] });
    expect(e.decide({ ...read, extension: "mcp:fs" }, { path: "src" }).input).toEqual({ path: join(realpathSync(ws), "src") });
    expect(e.decide(read, { uri: `file://${ws}/link-to-etc/passwd` }).input).toEqual({ uri: `file://${realpathSync(root)}/etc/passwd` });
    expect(e.decide(read, { uri: "https://example.com/x" }).input).toBeUndefined();
  });

  it("reads the path names models and servers use, for every kind of tool", () => {
    const e = engine({});
    for (const key of ["file_path", "filePath", "file", "filename", "directory", "dir"]) {
      expect(e.decide(read, { [key]: "~/notes/x" }).action, key).toBe("ask");
      expect(e.decide(read, { [key]: "src/x" }).action, key).toBe("allow");
    }
    expect(e.decide(read, { uri: `file://${home}/notes/x` }).action).toBe("ask");
    expect(e.decide(read, { uri: "file:///a%00b" }).action).toBe("deny");
    expect(e.decide(read, { file: { name: "x", bytes: 3 } }).action).toBe("allow");
  });

  it("follows a dangling symlink to the target a write would create", () => {
    symlinkSync(join(home, "missing", "evil"), join(ws, "dangling"));
    expect(engine({}, "accept-edits").decide(edit, { path: "dangling" }).action).toBe("ask");
  });
});

describe("protected paths", () => {
  const own = () => [join(home, ".config", "awl"), join(home, ".local", "share", "awl")];
  const guarded = (mode: PermissionMode, rules: Partial<Record<RuleAction, string[]>> = {}) => {
    const e = engine(rules, mode);
    return new PermissionEngine({ workspace: ws, home, mode, rules: [...e.list()], protectedFolders: own() });
  };
  const targets = () => [".git/config", ".git/hooks/pre-commit", "sub/.git/config", ".GIT/config", ".awl/config.json", ".awl/extensions/x.lua", "AGENTS.md", "docs/CLAUDE.md", "~/.config/awl/config.json", "~/.local/share/awl/sessions/x.jsonl"];

  it("a write there asks in default and accept-edits mode, under allow rules for the tool, the path and everything", () => {
    for (const mode of ["default", "accept-edits"] as const) {
      for (const rules of [{}, { allow: ["edit"] }, { allow: ["edit(**)", "edit(~/**)"] }, { allow: ["*"] }]) {
        for (const path of targets()) {
          const d = guarded(mode, rules).decide(edit, { path });
          expect(d.action, `${mode} ${JSON.stringify(rules)} ${path}`).toBe("ask");
          expect(d.allowRules).toEqual([]);
        }
      }
    }
  });

  it("bypass runs it, a deny rule denies it, plan never offers it; reading there is not held", () => {
    for (const path of targets()) {
      expect(guarded("bypass").decide(edit, { path }).action, path).toBe("allow");
      expect(guarded("default", { deny: ["edit(.git/**)"] }).decide(edit, { path: ".git/config" }).action).toBe("deny");
      expect(guarded("plan").decide(edit, { path }).action).toBe("deny");
    }
    expect(guarded("default").decide(read, { path: ".git/config" }).action).toBe("allow");
    expect(guarded("accept-edits").decide(edit, { path: "src/gitignore.ts" }).action).toBe("allow");
    expect(guarded("accept-edits").decide(edit, { path: ".gitignore" }).action).toBe("allow");
  });
});

describe("a path rule on a kind", () => {
  const grep = { name: "grep", kinds: ["read"] };
  const write = { name: "write", kinds: ["write"] };
  it("read(P) denies and asks for every read tool, edit(P) and write(P) for every write tool", () => {
    const e = engine({ deny: ["read(.env)", "write(secrets/**)"], ask: ["read(notes/**)"] });
    for (const tool of [read, grep, { name: "mcp_fs_read", kinds: ["read"] }]) {
      expect(e.decide(tool, { path: ".env" }).action, tool.name).toBe("deny");
      expect(e.decide(tool, { file_path: ".env" }).action, tool.name).toBe("deny");
      expect(e.decide(tool, { path: "notes/a" }).action, tool.name).toBe("ask");
    }
    expect(e.decide(edit, { path: "secrets/k" }).action).toBe("deny");
    expect(e.decide(write, { path: "secrets/k" }).action).toBe("deny");
    expect(e.decide(grep, { path: "src" }).action).toBe("allow");
  });

  it("an allow rule on a kind allows only a tool that does nothing else", () => {
    const e = engine({ allow: ["read(~/notes/**)", "edit(~/notes/**)"] });
    expect(e.decide({ name: "grep", kinds: ["read"] }, { path: "~/notes/x" }).action).toBe("allow");
    expect(e.decide(write, { path: "~/notes/x" }).action).toBe("allow");
    expect(e.decide({ name: "sync", kinds: ["read", "network"] }, { path: "~/notes/x" }).action).toBe("ask");
    expect(e.decide({ name: "run", kinds: ["exec"] }, { path: "~/notes/x" }).action).toBe("ask");
  });
});

describe("rules offered for a literal path", () => {
  it("escape * ? [ ] { } so the rule matches that path only, and keep a leading ~ from meaning home", () => {
    for (const name of ["*", "a?", "[ab]", "{x,y}", "~"]) {
      for (const path of [`~/notes/${name}`, name]) {
        const offered = engine({}).decide(edit, { path }).allowRules;
        expect(offered, path).toHaveLength(1);
        const rule = parseRule(offered[0]!, "allow", { kind: "session" }, ws, home);
        if (!rule.ok) throw new Error(rule.message);
        const withRule = new PermissionEngine({ workspace: ws, home, rules: [rule.rule] });
        expect(withRule.decide(edit, { path }).action, path).toBe("allow");
        expect(withRule.decide(edit, { path: path.replace(name, "id_rsa") }).action, `${path} then id_rsa`).toBe("ask");
      }
    }
    expect(engine({}).decide(edit, { path: "~" }).allowRules).toEqual([`edit(${realpathSync(home)})`]);
    expect(engine({}).decide(edit, { path: "./~" }).allowRules).toEqual(["edit(./~)"]);
  });
});

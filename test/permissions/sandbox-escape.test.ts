// The exec sandbox against a command that tries to get out (issue 22, item 5): it cannot plant code or config
// that runs later outside the sandbox (.awl/, .git/, awl's config and data folders, also where the writable temp
// folder holds them and a parent could be moved away), a project file cannot turn the sandbox off, it cannot reach
// a daemon through a Unix socket, and it cannot read the user's credential folders. A kernel without seccomp
// stops awl rather than running without the socket filter.
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { callTool, replayedCall, textOf, useSandbox } from "../std/support.js";

const env = useSandbox();
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

function userConfig(values: object): void {
  const dir = join(env.box.home, ".config", "awl");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify(values));
}

/** A Unix-socket server (a stand-in for docker.sock or the D-Bus bus) in the temp folder, which the sandbox sees. */
async function socketServer(): Promise<{ path: string; connections: () => number }> {
  const path = join(tmpdir(), `awl-daemon-${process.pid}-${Date.now()}.sock`);
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.end("daemon\n");
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(path, done));
  return { path, connections: () => connections };
}

const connectTo = (path: string) => `node -e 'require("net").connect(${JSON.stringify(path)}).on("data", (d) => process.stdout.write(d)).on("error", (e) => console.log(e.code))'`;

describe("--sandbox against escapes", () => {
  it("a command cannot plant an extension, a config or a git hook that would run later outside the sandbox", async () => {
    const cwd = env.box.cwd;
    mkdirSync(join(cwd, ".git", "hooks"), { recursive: true });
    const plant = [
      "mkdir -p .awl/extensions && echo 'os.execute(\"touch pwned\")' > .awl/extensions/x.lua",
      `echo '{"permissions":{"mode":"bypass"}}' > .awl/config.json`,
      "echo 'touch pwned' > .git/hooks/pre-commit",
      "echo '[core] fsmonitor = touch pwned' >> .git/config",
      "echo in > inside.txt",
    ].join("; ");
    const text = textOf((await callTool(env.box, "bash", { command: plant }, ["--sandbox"])).outcome);
    expect(text).toMatch(/Read-only file system/);
    expect(readFileSync(join(cwd, "inside.txt"), "utf8")).toBe("in\n");
    for (const planted of [".awl/extensions/x.lua", ".awl/config.json", ".git/hooks/pre-commit", ".git/config"]) expect(existsSync(join(cwd, planted)), planted).toBe(false);

    // With a .awl/ that exists (a trusted project's), the same.
    mkdirSync(join(cwd, ".awl", "extensions"), { recursive: true });
    await callTool(env.box, "bash", { command: plant }, ["--sandbox"]);
    for (const planted of [".awl/extensions/x.lua", ".awl/config.json", ".git/hooks/pre-commit"]) expect(existsSync(join(cwd, planted)), planted).toBe(false);
  });

  it("with HOME and the workspace inside the writable temp folder, awl's config and data and .awl/ cannot be planted, neither directly nor by moving a parent away", async () => {
    const { home, cwd } = env.box;
    // The case in point: the temp folder, writable inside the sandbox, holds both.
    for (const dir of [home, cwd]) expect(realpathSync(dir).startsWith(`${realpathSync(env.box.env().TMPDIR!)}/`), dir).toBe(true);
    rmSync(join(home, ".config", "awl"), { recursive: true, force: true });
    const config = join(home, ".config", "awl");
    const data = join(home, ".local", "share", "awl");
    const tries = [
      `mkdir -p ${config}/extensions && echo 'os.execute("touch pwned")' > ${config}/extensions/x.lua`,
      `echo '{"permissions":{"mode":"bypass"}}' > ${config}/config.json`,
      `mkdir -p ${data}/plugins && echo planted > ${data}/plugins/x`,
      `mv ${home}/.config ${home}/.config-old; mkdir -p ${config} && echo '{}' > ${config}/config.json`,
      `mv ${home}/.local ${home}/.local-old; mkdir -p ${data} && echo planted > ${data}/x`,
      `cd / && mv ${home} ${home}-old; mkdir -p ${config} && echo '{}' > ${config}/config.json`,
      `cd / && mv ${cwd} ${cwd}-old; mkdir -p ${cwd}/.awl && echo '{}' > ${cwd}/.awl/config.json`,
      `cd / && mv ${dirname(cwd)} ${dirname(cwd)}-old; mkdir -p ${cwd}/.awl && echo '{}' > ${cwd}/.awl/config.json`,
    ];
    for (const command of tries) {
      const text = textOf((await callTool(env.box, "bash", { command }, ["--sandbox"])).outcome);
      expect(text, command).toMatch(/Read-only file system|Device or resource busy/);
      for (const planted of [`${config}/extensions/x.lua`, `${config}/config.json`, `${data}/plugins/x`, `${data}/x`, `${cwd}/.awl/config.json`]) expect(existsSync(planted), `${command}: ${planted}`).toBe(false);
      for (const moved of [`${home}/.config-old`, `${home}/.local-old`, `${home}-old`, `${cwd}-old`, `${dirname(cwd)}-old`]) expect(existsSync(moved), `${command}: ${moved}`).toBe(false);
    }
  });

  it("a trusted project's \"sandbox\": false is ignored and said so; only the user's own config turns it off", async () => {
    userConfig({ permissions: { sandbox: true }, trusted_folders: [env.box.cwd] });
    mkdirSync(join(env.box.cwd, ".awl"), { recursive: true });
    writeFileSync(join(env.box.cwd, ".awl", "config.json"), JSON.stringify({ permissions: { sandbox: false } }));
    const outside = join("/var/tmp", `awl-escape-${process.pid}-${Date.now()}.txt`);
    try {
      const run = await replayedCall(env.box, env.server, "bash", { command: `echo out > ${outside}` });
      expect(run.content).toContain("Read-only file system");
      expect(existsSync(outside)).toBe(false);
      expect(run.stderr).toContain('"permissions.sandbox": false in a project file is ignored: only your own config turns the sandbox off');
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it("a command cannot connect to a Unix socket; without the sandbox, or with the socket opened by the user, it can", async () => {
    const { path, connections } = await socketServer();
    const boxed = textOf((await callTool(env.box, "bash", { command: connectTo(path) }, ["--sandbox"])).outcome);
    expect(boxed).toContain("EPERM");
    expect(connections()).toBe(0);
    expect(textOf((await callTool(env.box, "bash", { command: connectTo(path) })).outcome)).toBe("daemon\n[exit code 0]");
    expect(connections()).toBe(1);
    userConfig({ permissions: { sandbox_open: [path] } });
    expect(textOf((await callTool(env.box, "bash", { command: connectTo(path) }, ["--sandbox"])).outcome)).toBe("daemon\n[exit code 0]");
    expect(connections()).toBe(2);
  });

  it("a project file cannot open a socket or a credential folder", async () => {
    const { path, connections } = await socketServer();
    userConfig({ trusted_folders: [env.box.cwd] });
    mkdirSync(join(env.box.cwd, ".awl"), { recursive: true });
    writeFileSync(join(env.box.cwd, ".awl", "config.json"), JSON.stringify({ permissions: { sandbox_open: [path, "~/.ssh"] } }));
    const { content, stderr } = await replayedCall(env.box, env.server, "bash", { command: connectTo(path) }, ["--sandbox"]);
    expect(content).toContain("EPERM");
    expect(connections()).toBe(0);
    expect(stderr).toContain('"permissions.sandbox_open" is read from your own config only (ignored here)');
  });

  it("the credential folders and awl's own config are hidden; sandbox_open shows one", async () => {
    writeFileSync(join(env.box.home, ".netrc"), "machine example.com password hunter2\n");
    mkdirSync(join(env.box.home, ".ssh"), { recursive: true });
    mkdirSync(join(env.box.home, ".aws"), { recursive: true });
    writeFileSync(join(env.box.home, ".ssh", "id_rsa"), "PRIVATE KEY\n");
    writeFileSync(join(env.box.home, ".aws", "credentials"), "aws_secret_access_key = AKIAXXXX\n");
    userConfig({ api_key: "sk-in-the-config-file" });
    const command = "cat ~/.ssh/id_rsa ~/.aws/credentials ~/.netrc ~/.config/awl/config.json; ls ~/.ssh";
    const boxed = textOf((await callTool(env.box, "bash", { command }, ["--sandbox"])).outcome);
    expect(boxed).not.toContain("PRIVATE KEY");
    expect(boxed).not.toContain("AKIAXXXX");
    expect(boxed).not.toContain("hunter2");
    expect(boxed).not.toContain("sk-in-the-config-file");
    expect(boxed).toContain("id_rsa: No such file or directory");
    userConfig({ permissions: { sandbox_open: ["~/.ssh"] } });
    const opened = textOf((await callTool(env.box, "bash", { command: "cat ~/.ssh/id_rsa; cat ~/.aws/credentials" }, ["--sandbox"])).outcome);
    expect(opened).toContain("PRIVATE KEY");
    expect(opened).not.toContain("AKIAXXXX");
  });

  it("a kernel without seccomp stops awl with a message saying so; nothing runs without the socket filter", async () => {
    const bin = join(env.box.root, "no-seccomp-bin");
    mkdirSync(bin, { recursive: true });
    const real = "/usr/bin/bwrap";
    writeFileSync(join(bin, "bwrap"), `#!/bin/sh\nfor a in "$@"; do [ "$a" = --seccomp ] && { echo 'bwrap: prctl(PR_SET_SECCOMP): Invalid argument' >&2; exit 1; }; done\nexec ${real} "$@"\n`, { mode: 0o755 });
    const marker = join(env.box.cwd, "ran");
    const run = await env.box.awl(["tool", "call", "bash", JSON.stringify({ command: `touch ${marker}` }), "--sandbox"], { env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--sandbox: bubblewrap cannot install the seccomp filter that keeps sandboxed commands off Unix sockets (bwrap: prctl(PR_SET_SECCOMP): Invalid argument)");
    expect(existsSync(marker)).toBe(false);
  });
});

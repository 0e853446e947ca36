/**
 * Agent Skills through the built `awl` against a local scripted server (docs/skills.md): the listing in the system
 * prompt, the body only once invoked (the model's `skill` call, `/name`, `$name`), trust, bad SKILL.md files.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serverPerTest } from "./reach-support.js";
import { openaiToolCalls } from "../e2e/support.js";
import { openaiAnswer } from "./openai-answer.js";
import { runAwl, expectNoStackTrace } from "./run-awl.js";

const live = serverPerTest();
const setUp = live.setUp;

function skill(root: string, folder: string, text: string): string {
  mkdirSync(join(root, folder), { recursive: true });
  writeFileSync(join(root, folder, "SKILL.md"), text);
  return join(root, folder);
}

const PDF = "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files. Use when the user mentions a PDF.\nlicense: MIT\n---\n# PDF tools\n\nRun scripts/extract.py FILE and SECRET-BODY-MARKER.\n";

/** The system prompt of request `n`. */
function system(n: number): string {
  const body = live.server.requests[n]!.json() as { messages: Array<{ role: string; content: unknown }> };
  return String(body.messages.find((m) => m.role === "system")?.content ?? "");
}

function sent(n: number): string {
  return live.server.requests[n]!.body;
}

describe("Agent Skills", { timeout: 90_000 }, () => {
  it("lists a skill's description in the first request without its body; the model's skill call loads the body with the folder", async () => {
    const { cwd, home, env } = setUp();
    const dir = skill(join(home, ".config", "awl", "skills"), "pdf-tools", PDF);
    live.server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "skill", input: { name: "pdf-tools" } }]) }, openaiAnswer("Done."));
    const run = await runAwl(["-p", "summarise report.pdf"], { cwd, env });
    expect(run.code).toBe(0);
    expect(system(0)).toContain("- pdf-tools: Extract text and tables from PDF files. Use when the user mentions a PDF.");
    expect(sent(0)).not.toContain("SECRET-BODY-MARKER");
    const tools = (live.server.requests[0]!.json() as { tools: Array<{ function: { name: string } }> }).tools.map((t) => t.function.name);
    expect(tools).toContain("skill");
    const result = (live.server.requests[1]!.json() as { messages: Array<{ role: string; content: string }> }).messages.at(-1)!;
    expect(result.role).toBe("tool");
    expect(result.content).toContain("Run scripts/extract.py FILE and SECRET-BODY-MARKER.");
    expect(result.content).toContain(`folder="${dir}"`);
    expect(result.content).not.toContain("license: MIT");
  });

  it("/name and $name put the body in the user's message; a prompt naming no skill is sent as typed", async () => {
    const { cwd, home, env } = setUp();
    skill(join(home, ".agents", "skills"), "pdf-tools", PDF);
    live.server.enqueue(openaiAnswer("One."), openaiAnswer("Two."), openaiAnswer("Three."));
    const slash = await runAwl(["-p", "/pdf-tools report.pdf"], { cwd, env });
    expect(slash.code).toBe(0);
    const first = JSON.stringify((live.server.requests[0]!.json() as { messages: unknown[] }).messages.at(-1));
    expect(first).toContain("SECRET-BODY-MARKER");
    expect(first).toContain("report.pdf");
    const mention = await runAwl(["-p", "use $pdf-tools on it"], { cwd, env });
    expect(mention.code).toBe(0);
    const second = JSON.stringify((live.server.requests[1]!.json() as { messages: unknown[] }).messages.at(-1));
    expect(second).toContain("use $pdf-tools on it");
    expect(second).toContain("SECRET-BODY-MARKER");
    const path = await runAwl(["-p", "/usr/bin/env and $HOME"], { cwd, env });
    expect(path.code).toBe(0);
    expect((live.server.requests[2]!.json() as { messages: Array<{ content: string }> }).messages.at(-1)!.content).toBe("/usr/bin/env and $HOME");
  });

  it("a skill of an untrusted folder is not offered (nor loadable by /name); trusted, it is, and wins over the user's of the same name", async () => {
    const { cwd, home, env } = setUp();
    skill(join(cwd, ".claude", "skills"), "pdf-tools", PDF.replace("Extract text", "PROJECT extract"));
    skill(join(home, ".config", "awl", "skills"), "pdf-tools", PDF.replace("Extract text", "USER extract").replace("SECRET-BODY-MARKER", "USER-BODY"));
    live.server.enqueue(openaiAnswer("A."), openaiAnswer("B."));
    await runAwl(["-p", "/pdf-tools"], { cwd, env });
    expect(system(0)).toContain("USER extract");
    expect(system(0)).not.toContain("PROJECT extract");
    expect(sent(0)).toContain("USER-BODY");
    await runAwl(["-p", "hello", "--trust-project"], { cwd, env });
    expect(system(1)).toContain("PROJECT extract");
    expect(system(1)).not.toContain("USER extract");
    const listed = await runAwl(["skills", "--trust-project"], { cwd, env });
    expect(listed.stdout).toMatch(/pdf-tools {2}\.claude\/skills {2}[\d.]+ B {2}offered/);
    expect(listed.stdout).toMatch(/pdf-tools {2}~\/\.config\/awl\/skills .* shadowed\n {6}the project skill in \.claude\/skills has this name and wins/);
    const untrusted = await runAwl(["skills"], { cwd, env });
    expect(untrusted.stdout).toMatch(/pdf-tools {2}\.claude\/skills .* untrusted\n {6}this folder is not trusted/);
  });

  it("reports a SKILL.md that is not YAML with file:line, a name that breaks the rules, and offers neither", async () => {
    const { cwd, home, env } = setUp();
    const root = join(home, ".config", "awl", "skills");
    skill(root, "broken", "---\nname: broken\ndescription: Use when: the user asks\n---\nbody\n");
    skill(root, "Upper-Case", "---\nname: Upper-Case\ndescription: Fine words.\n---\nbody\n");
    skill(root, "other-name", "---\nname: not-the-folder\ndescription: Fine words.\n---\nbody\n");
    skill(root, "no-description", "---\nname: no-description\n---\nbody\n");
    skill(root, "good", "---\nname: good\ndescription: A good skill.\n---\nbody\n");
    const listed = await runAwl(["skills"], { cwd, env });
    expectNoStackTrace(listed.stdout + listed.stderr);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${join(root, "broken", "SKILL.md")}:3: front matter is not valid YAML`);
    expect(listed.stdout).toContain('`name` "Upper-Case" may hold only lowercase letters, digits and hyphens');
    expect(listed.stdout).toContain('`name` "not-the-folder" is not the folder\'s name "other-name"');
    expect(listed.stdout).toContain("`description` is missing");
    expect(listed.stdout).toMatch(/good {2}~\/\.config\/awl\/skills .* offered/);
    live.server.enqueue(openaiAnswer("ok"));
    await runAwl(["-p", "hi"], { cwd, env });
    expect(system(0)).toContain("- good: A good skill.");
    for (const name of ["broken", "Upper-Case", "not-the-folder", "no-description"]) expect(system(0)).not.toContain(name);
  });

  it("cuts a 1 MB SKILL.md with a note saying where the rest is", async () => {
    const { cwd, home, env } = setUp();
    const dir = skill(join(home, ".config", "awl", "skills"), "huge", `---\nname: huge\ndescription: Big.\n---\nSTART ${"x".repeat(1024 * 1024)} END-MARKER\n`);
    live.server.enqueue(openaiAnswer("ok"));
    const run = await runAwl(["-p", "/huge"], { cwd, env });
    expect(run.code).toBe(0);
    const text = (live.server.requests[0]!.json() as { messages: Array<{ content: string }> }).messages.at(-1)!.content;
    expect(text).toContain("START x");
    expect(text).not.toContain("END-MARKER");
    expect(text).toContain(`[awl: the skill is cut here: its SKILL.md is 1.0 MB and awl sends the first 64 KB of its instructions; read the rest from ${join(dir, "SKILL.md")}`);
    expect(text.length).toBeLessThan(70 * 1024);
    const listed = await runAwl(["skills"], { cwd, env });
    expect(listed.stdout).toMatch(/huge .* 1\.0 MB {2}offered \(only the first 64\.0 KB is sent\)/);
  });

  it("past the listing's byte budget, skills are named without their description", async () => {
    const { cwd, home, env } = setUp();
    for (let i = 0; i < 40; i++) skill(join(home, ".config", "awl", "skills"), `s${String(i).padStart(2, "0")}`, `---\nname: s${String(i).padStart(2, "0")}\ndescription: ${"d".repeat(300)} ${i}\n---\nbody\n`);
    live.server.enqueue(openaiAnswer("ok"));
    await runAwl(["-p", "hi"], { cwd, env });
    const prompt = system(0);
    expect(prompt).toContain(`- s00: ${"d".repeat(300)} 0`);
    expect(prompt).not.toContain(`${"d".repeat(300)} 39`);
    expect(prompt).toMatch(/- also \(descriptions left out for space; load one to see it\): .*s39/);
    const listed = await runAwl(["skills"], { cwd, env });
    expect(listed.stdout).toMatch(/listed by name only: .*s39/);
  });
});

// The system prompt's pieces without the CLI: deterministic bytes through a day, which instruction files are found
// (XDG_CONFIG_HOME, CLAUDE.md per folder, outside a repository, a worktree's .git file, the 32 KB cut), and which
// tool advice is given.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildSystemPrompt, findInstructionFiles, MAX_INSTRUCTION_BYTES, systemPromptFor } from "../../src/prompt/index.js";
import { tempDir } from "../support/temp-dir.js";

let root: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  root = tempDir("awl-prompt-");
  mkdirSync(join(root, "home"));
  env = { HOME: join(root, "home") };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(relative: string, text: string): string {
  const path = join(root, relative);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const STD = ["bash", "edit", "find", "grep", "ls", "read", "write"];

describe("the system prompt's bytes", () => {
  it("are the same all day, from the first second to the last, and change with the day", () => {
    mkdirSync(join(root, "p"));
    const at = (h: number, m: number, s: number, day = 14) => systemPromptFor({ cwd: join(root, "p"), env, tools: STD, now: new Date(2026, 4, day, h, m, s, 999) }).text;
    const morning = at(0, 0, 0);
    expect(at(12, 30, 1)).toBe(morning);
    expect(at(23, 59, 59)).toBe(morning);
    expect(morning).toContain("\nDate: 2026-05-14\n");
    const next = at(0, 0, 0, 15);
    expect(next).toBe(morning.replace("Date: 2026-05-14", "Date: 2026-05-15"));
  });

  it("name who the assistant is, the folder, the repository, the platform, the shell and the date", () => {
    const text = buildSystemPrompt({ cwd: "/w/p", gitRoot: "/w", platform: "linux x64", shell: "zsh", date: "2026-05-14", tools: STD, instructions: [] });
    expect(text).toMatch(/^You are awl, a coding agent in the user's terminal\./);
    expect(text).toContain("Working directory: /w/p\nGit repository: yes, root /w\nPlatform: linux x64; shell: zsh\nDate: 2026-05-14\n");
  });

  it("give advice only for the tools offered", () => {
    const base = { cwd: "/p", platform: "linux x64", shell: "bash", date: "2026-05-14", instructions: [] };
    const onlyRead = buildSystemPrompt({ ...base, tools: ["read"] });
    expect(onlyRead).toContain("Read a file before you edit it");
    expect(onlyRead).not.toMatch(/bash runs|Change files with edit|Explore with|in parallel/);
    const none = buildSystemPrompt({ ...base, tools: [] });
    expect(none).not.toMatch(/^- /m);
    const all = buildSystemPrompt({ ...base, tools: STD });
    expect(all.match(/^- /gm)).toHaveLength(5); // four kinds of tool, and parallel calls
  });

  it("with --system-prompt keep the instruction files after the text, and --append-system-prompt last", () => {
    const file = { path: "/p/AGENTS.md", scope: "project" as const, text: "Rules.", truncated: false };
    const text = buildSystemPrompt({ cwd: "/p", platform: "x", shell: "sh", date: "d", tools: STD, instructions: [file], replace: "Mine.\n", append: "\nLast.\n" });
    expect(text).toBe("Mine.\n\n# Instructions (from these files; a later one wins over an earlier one)\n\n## /p/AGENTS.md\n\nRules.\n\nLast.");
  });

  it("with an empty --system-prompt send no default text: only what follows it, or nothing", () => {
    const file = { path: "/p/AGENTS.md", scope: "project" as const, text: "Rules.", truncated: false };
    const base = { cwd: "/p", platform: "x", shell: "sh", date: "d", tools: STD, replace: " \n" };
    expect(buildSystemPrompt({ ...base, instructions: [file] })).toBe("# Instructions (from these files; a later one wins over an earlier one)\n\n## /p/AGENTS.md\n\nRules.");
    expect(buildSystemPrompt({ ...base, instructions: [], append: "Last." })).toBe("Last.");
    expect(buildSystemPrompt({ ...base, instructions: [] })).toBe("");
  });
});

describe("the instruction files", () => {
  it("come from $XDG_CONFIG_HOME/awl first, then the repository's root down to the working directory", () => {
    const git = join(root, "repo");
    mkdirSync(join(git, ".git"), { recursive: true });
    const mine = write("xdg/awl/AGENTS.md", "mine\n");
    write("home/.config/awl/AGENTS.md", "not read: XDG_CONFIG_HOME is set\n");
    write("AGENTS.md", "above the repository: not read\n");
    const top = write("repo/AGENTS.md", "top\n");
    write("repo/CLAUDE.md", "not read: AGENTS.md is beside it\n");
    const mid = write("repo/a/CLAUDE.md", "mid\n");
    const near = write("repo/a/b/AGENTS.md", "\ufeffnear\n\n");
    mkdirSync(join(git, "a/b/c"));
    const files = findInstructionFiles(join(git, "a/b/c"), { ...env, XDG_CONFIG_HOME: join(root, "xdg") });
    expect(files.map((f) => [f.path, f.scope, f.text])).toEqual([
      [mine, "user", "mine"],
      [top, "project", "top"],
      [mid, "project", "mid"],
      [near, "project", "near"], // BOM and trailing blank lines gone
    ]);
  });

  it("take the user's CLAUDE.md when there is no AGENTS.md in awl's config folder", () => {
    const claude = write("home/.config/awl/CLAUDE.md", "claude\n");
    mkdirSync(join(root, "p"));
    expect(findInstructionFiles(join(root, "p"), env).map((f) => f.path)).toEqual([claude]);
  });

  it("outside a repository, are only the working directory's own", () => {
    write("AGENTS.md", "parent\n");
    const own = write("p/AGENTS.md", "own\n");
    expect(findInstructionFiles(join(root, "p"), env).map((f) => f.path)).toEqual([own]);
  });

  it("stop at a worktree's root, whose .git is a file", () => {
    write("AGENTS.md", "above\n");
    write("wt/.git", "gitdir: /elsewhere\n");
    const top = write("wt/AGENTS.md", "top\n");
    mkdirSync(join(root, "wt/src"));
    expect(findInstructionFiles(join(root, "wt/src"), env).map((f) => f.path)).toEqual([top]);
  });

  it("are cut at 32 KB, and the prompt says so", () => {
    write("p/AGENTS.md", "x".repeat(MAX_INSTRUCTION_BYTES + 10));
    const [file] = findInstructionFiles(join(root, "p"), env);
    expect(file).toMatchObject({ truncated: true });
    expect(file!.text).toHaveLength(MAX_INSTRUCTION_BYTES);
    const text = systemPromptFor({ cwd: join(root, "p"), env, tools: [] }).text;
    expect(text.endsWith("x\n[awl: this file is cut here; it is longer than awl sends]")).toBe(true);
  });

  it("are cut between characters, never through one", () => {
    write("p/AGENTS.md", "x" + "é".repeat(MAX_INSTRUCTION_BYTES)); // the cut falls inside an é
    const [file] = findInstructionFiles(join(root, "p"), env);
    expect(file!.text).toBe("x" + "é".repeat((MAX_INSTRUCTION_BYTES - 2) / 2));
  });

  it("skip a folder named AGENTS.md, and then take CLAUDE.md", () => {
    mkdirSync(join(root, "p/AGENTS.md"), { recursive: true });
    const claude = write("p/CLAUDE.md", "c\n");
    expect(findInstructionFiles(join(root, "p"), env).map((f) => f.path)).toEqual([claude]);
  });
});

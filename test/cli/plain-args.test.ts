// The command line's plain shapes read without Node's parseArgs (src/cli/plain-args.ts, issue 30): whatever the
// fast path reads, it reads exactly as `parseArgs` does, and everything else it leaves to `parseArgs`.
import { parseArgs } from "node:util";
import { expect, it } from "vitest";
import { flagOptions } from "../../src/cli/options.js";
import { parsePlainArgs, type PlainArgs, type PlainOption } from "../../src/cli/plain-args.js";

type Outcome = { values: Record<string, unknown>; prototype: unknown; positionals: string[] } | "error";

function general(args: string[], options: Record<string, PlainOption>): Outcome {
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values: { ...values }, prototype: Object.getPrototypeOf(values), positionals };
  } catch {
    return "error";
  }
}

const plain = (read: PlainArgs): Outcome => ({ values: { ...read.values }, prototype: Object.getPrototypeOf(read.values), positionals: read.positionals });

/** A small deterministic generator (mulberry32), so a failure names a list that can be run again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every shape an argument can have: each option's forms, values of every kind, the odd and the wrong ones. */
function vocabulary(options: Record<string, PlainOption>): string[] {
  const words = ["hi", "say hi", "", "-", "--", "---", "-5", "a=b", "=", "--=x", "--=", "---x", "-=", "-ü", "__proto__", "--__proto__", "--constructor", "--toString", "-z", "--nonsense", "--no-such=1", "-pc", "-cp", "-rabc", "-r=x", "-hv", "-p=1"];
  for (const [name, option] of Object.entries(options)) {
    words.push(`--${name}`, `--${name}=`, `--${name}=v`, `--${name}=-v`, `--${name}==`, `--${name.toUpperCase()}`);
    if (option.short) words.push(`-${option.short}`, `-${option.short}v`, `-${option.short}-`);
  }
  return words;
}

function compareOver(options: Record<string, PlainOption>, lists: number, seed: number): number {
  const words = vocabulary(options);
  const next = random(seed);
  let read = 0;
  for (let n = 0; n < lists; n++) {
    const args = Array.from({ length: Math.floor(next() * 7) }, () => words[Math.floor(next() * words.length)]!);
    const fast = parsePlainArgs(args, options);
    if (fast === undefined) continue;
    read++;
    expect(plain(fast), JSON.stringify(args)).toEqual(general(args, options));
  }
  return read;
}

it("reads every plain command line exactly as parseArgs does, over 30 000 random lists of awl's flags", () => {
  const read = compareOver(flagOptions(), 30_000, 30);
  // Most lists hold an odd word and go to parseArgs; enough are read for the comparison to mean something.
  expect(read).toBeGreaterThan(1_000);
});

it("the same over options of every kind (repeatable booleans and strings, shorts of each type)", () => {
  const options: Record<string, PlainOption> = {
    flag: { type: "boolean", short: "f" },
    many: { type: "boolean", short: "m", multiple: true },
    name: { type: "string", short: "n" },
    list: { type: "string", short: "l", multiple: true },
    "no-x": { type: "boolean" },
    x: { type: "string", short: "x" },
  };
  expect(compareOver(options, 30_000, 31)).toBeGreaterThan(1_000);
});

it("reads the usual command lines itself", () => {
  const usual = [
    [],
    ["hi"],
    ["-p", "hi"],
    ["-p", "--no-session", "hi"],
    ["-p", "say hi", "--no-session"],
    ["--model", "gpt-5", "-p", "x"],
    ["--model=gpt-5", "--provider", "openai", "--base-url", "http://localhost:11434/v1", "-p", "x"],
    ["--allow", "bash(git status)", "--allow", "edit(src/**)", "--deny", "bash(rm *)", "-p", "q"],
    ["--output-format", "stream-json", "--input-format", "stream-json"],
    ["-c"],
    ["-r", "abc123"],
    ["-r", ""],
    ["--extensions-dir", "./ext", "--extensions-dir=../more", "--trust-project", "-p", "hi"],
    ["--help"],
    ["-v"],
  ];
  for (const args of usual) {
    const fast = parsePlainArgs(args, flagOptions());
    expect(fast, JSON.stringify(args)).toBeDefined();
    expect(plain(fast!)).toEqual(general(args, flagOptions()));
  }
});

it("leaves to parseArgs what it does not read: odd shapes and mistakes", () => {
  for (const args of [["--"], ["-"], ["-pc"], ["--nonsense"], ["-p", "--model"], ["--model", "-x"], ["--print=yes"], ["-rabc"], ["--", "-p"], ["--model"]]) {
    expect(parsePlainArgs(args, flagOptions()), JSON.stringify(args)).toBeUndefined();
  }
});

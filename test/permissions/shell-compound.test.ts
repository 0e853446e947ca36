// Compound commands read without the parser (src/permissions/shell-compound.ts) are read exactly as the parser
// reads them: on every string of the shell-rule and permission tests, on the rm fuzz test's compositions, and on
// thousands of generated compound commands full of adversarial syntax (comments, `$'…'`, line continuations,
// quotes spanning lines, keywords as arguments, nested quotes in `$(…)`, unbalanced input, random cuts and
// insertions), whenever the reader accepts a command its reading deep-equals the parser's (same simple commands,
// same writes, same forms for deny rules, same unresolved reason); and awl's reading (every shortcut on) always
// does. So the shortcut can never be less strict than the parser.
import { beforeAll, describe, expect, it } from "vitest";
import { parseCommand } from "../../src/permissions/shell-commands.js";
import { compoundCommands } from "../../src/permissions/shell-compound.js";
import { loadShellParser } from "../../src/permissions/command-reading.js";
import { prng } from "../support/prng.js";
import { commandTestStrings, generateCompound, generateRmCommand, RM_FORMS } from "./shell-forms.js";

beforeAll(async () => {
  await loadShellParser();
});

/**
 * The compound reading (the plain shortcut off, so it reads plain commands too) and awl's reading, each against
 * the parser's; whether the compound reader accepted `command`.
 */
function expectSameReading(command: string): boolean {
  const parser = parseCommand(command, { parser: true });
  const label = JSON.stringify(command);
  expect(parseCommand(command), label).toEqual(parser);
  if (compoundCommands(command) === undefined) return false;
  expect(parseCommand(command, { plain: false }), label).toEqual(parser);
  return true;
}

describe("the compound reader", () => {
  it("reads loops, conditionals, substitutions and redirections, and leaves what it is not sure of to the parser", () => {
    const steps = compoundCommands('for f in src/*.ts; do grep -n TODO "$f" >/dev/null || echo "$(basename $f)"; done < list');
    expect(steps).toEqual([
      { kind: "command", assignments: [], words: [{ text: "grep", open: false }, { text: "-n", open: false }, { text: "TODO", open: false }, { text: "", open: true }], writes: false },
      { kind: "command", assignments: [], words: [{ text: "echo", open: false }, { text: "", open: true }], writes: false },
      { kind: "command", assignments: [], words: [{ text: "basename", open: false }, { text: "", open: true }], writes: false },
    ]);
    expect(compoundCommands("{ ls; } > out")?.[0]?.writes).toBe(true);
    expect(compoundCommands("cat <<'EOF' > notes.md\n# a title with 'quotes' and $x\nEOF\nls")?.map((step) => step.writes)).toEqual([true, false]);
    const parserOnly = ["case x in x) rm victim;; esac", "f() { rm victim; }", "echo $((1+2))", "echo `id`", "echo $'\\x72m'", "echo ${x:-y}", "cat <(ls)", "echo hi # x", "echo a \\\n b", "ls &", "ls |& cat", "cat <<< x", "cat <<EOF\nx\nEOF", "> f echo", "echo > f x", "export X=1", "time ls", "[[ -f x ]]", "echo é", "echo a\rb", "! while true; do ls; done", "fi\"x\"", "cat <<'EOF' > f | wc -l\nx\nEOF", "echo > /dev/null x"];
    for (const command of parserOnly) expect(compoundCommands(command), JSON.stringify(command)).toBeUndefined();
  });

  it("reads every command of the shell-rule and permission tests as the parser does", () => {
    const strings = [...new Set([...commandTestStrings(), ...RM_FORMS])];
    const accepted = strings.filter(expectSameReading);
    expect(accepted.length).toBeGreaterThan(100);
  });

  it("reads the rm fuzz test's compositions as the parser does", () => {
    const random = prng(22);
    let accepted = 0;
    for (let n = 0; n < 3000; n++) if (expectSameReading(generateRmCommand(random))) accepted++;
    expect(accepted).toBeGreaterThan(300);
  }, 240_000);

  it("reads generated compound commands as the parser does whenever it accepts them", () => {
    const random = prng(2027);
    let accepted = 0;
    const total = 8000;
    for (let n = 0; n < total; n++) if (expectSameReading(generateCompound(random))) accepted++;
    // The generator reaches both sides: many commands are read by the shortcut and many are left to the parser.
    expect(accepted).toBeGreaterThan(total * 0.15);
    expect(accepted).toBeLessThan(total * 0.85);
  }, 240_000);
});

// Plain commands read without the parser (src/permissions/shell-plain.ts) are read exactly as the parser reads
// them: on every string of the shell-rule and permission tests, and on generated commands mixing plain and
// non-plain syntax, whenever the tokenizer accepts a command its reading equals the parser's (same simple
// commands, same forms for deny rules, same unresolved reason). So the fast path can never be less strict.
import { beforeAll, describe, expect, it } from "vitest";
import { parseCommand } from "../../src/permissions/shell-commands.js";
import { loadShellParser } from "../../src/permissions/command-reading.js";
import { plainCommands } from "../../src/permissions/shell-plain.js";
import { prng } from "../support/prng.js";
import { commandTestStrings, RM_FORMS } from "./shell-forms.js";

beforeAll(async () => {
  await loadShellParser();
});

/** The plain reading and the parser's, which must be equal when the tokenizer accepts `command`. */
function expectSameReading(command: string): boolean {
  if (plainCommands(command) === undefined) return false;
  expect(parseCommand(command), JSON.stringify(command)).toEqual(parseCommand(command, { parser: true }));
  return true;
}

describe("the plain tokenizer", () => {
  it("reads plain commands into words and leaves everything else to the parser", () => {
    expect(plainCommands("git status && npm test | tail -n 20")).toEqual([
      [{ text: "git", open: false }, { text: "status", open: false }],
      [{ text: "npm", open: false }, { text: "test", open: false }],
      [{ text: "tail", open: false }, { text: "-n", open: false }, { text: "20", open: false }],
    ]);
    expect(plainCommands(`echo 'a; b' "c && d"; ls\nls -la || true`)?.map((c) => c.map((w) => w.text))).toEqual([["echo", "a; b", "c && d"], ["ls"], ["ls", "-la"], ["true"]]);
    const notPlain = ["echo $HOME", "echo `id`", 'echo "$x"', "echo *.ts", "echo {a,b}", "echo hi # x", "echo hi > f", "cat < f", "r\\m x", "ls ~", "! ls", "ls &", "ls |& cat", "(ls)", "if true; then ls; fi", "X=1 ls", "'a=b' ls", "export X=1", "time ls", "ls &&", "; ls", "ls;;", "ls && ; ls", "echo 'open", "echo a\rb", "echo é", "echo 'a\u001bb'", "declare -i n", "[[ -f x ]]", "ls\n;"];
    for (const command of notPlain) expect(plainCommands(command), JSON.stringify(command)).toBeUndefined();
  });

  it("reads every plain command of the shell-rule and permission tests as the parser does", () => {
    const strings = [...new Set([...commandTestStrings(), ...RM_FORMS])];
    const plain = strings.filter(expectSameReading);
    // The comparison is not empty: many test commands are plain.
    expect(plain.length).toBeGreaterThan(50);
  });

  it("reads generated commands as the parser does whenever it accepts them", () => {
    const random = prng(2026);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const words = ["ls", "rm", "-rf", "victim", "git", "status", "push", "--force", "--x=y", "a=b", "=x", "x=", "-", "--", ":", ".", "..", "/bin/rm", "a/b.c", "1", "0x1f", "2>", "if", "then", "fi", "done", "do", "in", "time", "export", "declare", "local", "unset", "coproc", "select", "function", "{", "}", "[", "]", "[[", "!", "esac", "case", "while", "env", "nice", "timeout", "5", "xargs", "find", "-exec", "bash", "-c", "sh", "eval", "sudo", "-u", "root", "command", "exec", "source", "watch", "ssh", "git", "-c", "core.pager=less", "alias.x=!rm", "GIT_SSH_COMMAND=rm", "read", "printf", "-v", "let", "'rm victim'", "'rm -rf /'", "\"rm victim\"", "'a; b'", '"c && d"', "''", '""', "a'b'c", "'it'\\''s'", '"é ü"', "'日本'", '"a\nb"', "'a\tb'", "\"a!b\"", '"a$x"', "'$x'", "$x", "`id`", "*", "a*b", "~", "~/x", "#", "a#b", "\\", "x\\y", "%1", "a^b", "é", "a&b", "(", ")", "<", ">", ">>", "2>&1", "@", "a,b", "+x"];
    const separators = [" ", "  ", "\t", " && ", "&&", " || ", "||", " | ", "|", "; ", ";", "\n", " \n ", "&&\n", "|\n", "\n\n", " & ", "&", " |& ", ";;", " ; ; "];
    let accepted = 0;
    for (let n = 0; n < 6000; n++) {
      let command = "";
      const length = 1 + Math.floor(random() * 8);
      for (let i = 0; i < length; i++) command += pick(words) + (i === length - 1 ? (random() < 0.2 ? pick(separators) : "") : random() < 0.6 ? " " : pick(separators));
      if (random() < 0.1) command = `${pick(separators)}${command}`;
      // Inner scripts go through the same reading: quote a generated command as `bash -c` would get it.
      if (random() < 0.15) command = `${pick(["bash -c", "sh -c", "eval", "sudo -u root bash -c", "env bash -c"])} '${command.replace(/'/g, "'\\''")}'`;
      if (expectSameReading(command)) accepted++;
    }
    // The generator reaches both sides: plenty of commands are plain and plenty are not.
    expect(accepted).toBeGreaterThan(600);
    expect(accepted).toBeLessThan(5400);
  }, 120_000);
});


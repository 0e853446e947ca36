// Shell forms that run `rm victim`, shared by the rule tests (shell-rules.test.ts), the end-to-end ones
// (test/e2e/shell-rules.test.ts) and the readers' differential tests (shell-plain.test.ts, shell-compound.test.ts).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/** The forms of issue 22 (and more) that run `rm victim`. */
export const RM_FORMS = [
  "rm victim",
  "for f in victim; do rm -f $f; done",
  "for f in victim; do rm -f \"$f\"; done",
  "if true; then rm victim; fi",
  "if false; then :; elif true; then rm victim; else :; fi",
  "while true; do rm victim; break; done",
  "until false; do rm victim; break; done",
  "case x in x) rm victim;; esac",
  "! rm victim",
  "exec rm victim",
  "time rm victim",
  "time -p rm victim",
  "env rm victim",
  "env -i PATH=/usr/bin:/bin rm victim",
  "/usr/bin/env rm victim",
  "nice rm victim",
  "nice -n 5 rm victim",
  "nohup rm victim",
  "timeout 5 rm victim",
  "timeout -s KILL 5 rm victim",
  "command rm victim",
  "builtin command rm victim",
  "echo victim | xargs rm",
  "echo victim | xargs -I{} rm {}",
  "echo victim | xargs -0 -n 1 rm -f",
  "sudo rm victim",
  "sudo -u root rm victim",
  'bash -c "rm victim"',
  "sh -c 'rm victim'",
  "zsh -c 'rm victim'",
  "bash -lc 'rm victim'",
  "bash -e -c 'rm victim'",
  "eval 'rm victim'",
  'eval "rm" victim',
  "find . -name victim -exec rm {} \\;",
  "find . -name victim -exec rm {} +",
  "find . -name victim -execdir rm -f {} ';'",
  "f() { rm victim; }; f",
  "function g { rm victim; }; g",
  "(rm victim)",
  "{ rm victim; }",
  "true && rm victim",
  "false || rm victim",
  "true; rm victim",
  "true\nrm victim",
  "true & rm victim",
  "echo x | rm victim",
  "echo x |& rm victim",
  "echo $(rm victim)",
  "echo `rm victim`",
  "echo `echo \\`rm victim\\``",
  "echo `echo \\$(rm victim)`",
  'echo "$(rm victim)"',
  "x=$(rm victim)",
  "export x=$(rm victim)",
  "cat <(rm victim)",
  "echo x > >(rm victim)",
  "cat <<EOF\n$(rm victim)\nEOF",
  "cat <<< $(rm victim)",
  "X=1 rm victim",
  "X=1 Y=2 env rm victim",
  '"rm" victim',
  "'r'm victim",
  "r\\m victim",
  "r\\\nm victim",
  "$'r\\x6d' victim",
  "$'\\x72\\x6d' victim",
  "$'\\162m' victim",
  "/bin/rm victim",
  "rm victim 2>&1 >/dev/null",
  "echo ${x:-$(rm victim)}",
  "echo $((1 + $(rm victim; echo 1)))",
  "[[ $(rm victim) ]]",
  "trap 'rm victim' EXIT",
  "coproc rm victim",
  "setsid rm victim",
  "stdbuf -o0 rm victim",
  "nice timeout 5 env X=1 rm victim",
  // Scripts run by path: awl does not read the file, so a deny rule holds for it (docs/permissions.md, "Scripts").
  "printf 'rm -f victim' > victim.sh && bash victim.sh",
  "printf 'rm -f victim' > victim.sh; sh ./victim.sh",
  "printf 'rm -f victim' > victim.sh; . ./victim.sh",
  "printf 'rm -f victim' > victim.sh; source victim.sh",
  // Execution driven by the environment or configuration.
  "GIT_SSH_COMMAND='rm -f victim' git ls-remote ssh://h/r",
  "export GIT_SSH_COMMAND='rm -f victim'; git ls-remote ssh://h/r",
  "GIT_SSH_COMMAND='rm -f victim' X=1; export GIT_SSH_COMMAND; git ls-remote ssh://h/r",
  "env GIT_SSH_COMMAND='rm -f victim' git ls-remote ssh://h/r",
  "git -c core.sshCommand='rm -f victim' ls-remote ssh://h/r",
  "git -c alias.x='!rm -f victim' x",
  "find . -name victim -delete",
  // Wrappers that run their arguments.
  "flock victim.lock rm victim",
  "flock victim.lock -c 'rm victim'",
  "timeout 5 watch -n 1 -g rm -f victim",
  "ssh host rm victim",
  "parallel rm ::: victim",
];

/** Spellings of `rm` bash runs as rm. */
const RM_NAMES = ["rm", "'rm'", '"rm"', "r\\m", "r''m", "$'rm'", "$'\\x72m'", "/bin/rm", "\\rm", "r\\\nm"];
/** Wrappers that take a simple command (`C`) and run it. */
const PREFIXES: ((c: string) => string)[] = [
  (c) => `env ${c}`,
  (c) => `env -i PATH=/usr/bin:/bin ${c}`,
  (c) => `nice -n 1 ${c}`,
  (c) => `nohup ${c} 2>/dev/null`,
  (c) => `timeout 5 ${c}`,
  (c) => `time ${c}`,
  (c) => `command ${c}`,
  (c) => `exec ${c}`,
];
/** Forms that run any command (`C`); a command-string form quotes it. */
const WRAPS: ((c: string) => string)[] = [
  (c) => `(${c})`,
  (c) => `{ ${c}; }`,
  (c) => `true && ${c}`,
  (c) => `false || ${c}`,
  (c) => `true; ${c}`,
  (c) => `! ${c}`,
  (c) => `echo x | ${c}`,
  (c) => `if true; then ${c}; fi`,
  (c) => `for i in 1; do ${c}; done`,
  (c) => `while true; do ${c}; break; done`,
  (c) => `until false; do ${c}; break; done`,
  (c) => `case a in a) ${c};; esac`,
  (c) => `fz() { ${c}; }; fz`,
  (c) => `echo $(${c})`,
  (c) => `echo "$(${c})"`,
  (c) => `echo \`${c.replace(/\\/g, "\\\\").replace(/`/g, "\\`")}\``,
  (c) => `cat <(${c})`,
  (c) => `x=$(${c})`,
  (c) => `cat <<EOF\n$(${c})\nEOF`,
  (c) => `bash -c ${singleQuoted(c)}`,
  (c) => `sh -c ${singleQuoted(c)}`,
  (c) => `eval ${singleQuoted(c)}`,
];

function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** A random composition of the forms above around `rm -f victim` (the fuzz test of shell-rules.test.ts). */
export function generateRmCommand(random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  let command = `${pick(RM_NAMES)} -f victim`;
  let simple = true;
  const depth = 1 + Math.floor(random() * 4);
  for (let i = 0; i < depth; i++) {
    if (simple && random() < 0.4) {
      command = pick(PREFIXES)(command);
      // `exec` replaces the shell: what comes after it in a script never runs, so nothing wraps it but a new shell.
      if (command.startsWith("exec ")) command = `bash -c ${singleQuoted(command)}`;
    } else {
      command = pick(WRAPS)(command);
      simple = false;
    }
  }
  return command;
}

/** Words: ordinary ones, keywords as arguments, every quoting and expansion form, operators glued to words. */
const WORDS = [
  "rm", "victim", "-rf", "-f", "ls", "src/x.ts", "--x=y", "a=b", "=", "x=", "1", "12", "-1", "0x1f", "2#7", ".", "..", "/bin/rm", "~", "~/x", "a:b", "a,b", "%", "a^b", "+x", "@",
  "done", "do", "for", "in", "if", "then", "elif", "else", "fi", "while", "until", "case", "esac", "function", "select", "time", "coproc", "{", "}", "[", "]", "[[", "]]", "!", "!x", "a!b", "let", "read", "export",
  "'a b'", "'a;b'", "''", '""', '"a b"', "'it'\\''s'", "a'b'c", "'$x'", "'a\nb'", '"a\nb"', "'é'", '"ü $x"', "'a\tb'", "'a\rb'", "'a\u001bb'",
  '"$f"', '"${f}"', '"$f"x', "x\"$f\"", "$f", "${f}", "${f}x", "$1", "$10", "$@", '"$@"', "$*", "$?", "$$", "$!", "$#", "$-", "$_", "${#f}", "${f:-x}", "${f[0]}", "$", '"a$"', '"$"', "$'a'", "$'\\''", "$'\\x72m'", '$"a"', "$[1]", "$((1+2))",
  '" $x"', '"  a $x"', '"\t$x"', '"\n$x"', '" $(rm victim)"', '" "', "export'x'", "eval'rm victim'", "fi'x'", "{ {}", "{a,b}x", "-f*", "-n?", "a@", "a@b", "a%", "a?b", "x;a@", "a@ b", "user@host", "-f{1..3}", "-z[a]", "x*y", "?", "*", "a{}", '"$(ls)"', "$(ls)", "$(rm victim)", '"$(echo "a b")"', "$(echo 'a)b')", '$(echo ")")', "$( (ls) )", "$(ls; rm victim)", "$(for f in a; do rm $f; done)", "$(if true; then rm victim; fi)", "$(cat <<'EOF'\nx\nEOF\n)", "$(echo $(rm victim))", "$()", "$(", "`id`", "`rm victim`", "\\`id\\`",
  "*.ts", "a?", "[ab]", "a[1]", "{a,b}", "{1..3}", "{}", "a{}", "x}", "a]b", "#", "#x", "a#b", '"a"#b', "\\#", "\\;", "\\ ", "\\\\", "r\\m", "\\rm", "a\\\nb", "\\", "\\\n", "\\é",
  ">f", ">>f", "<f", "2>&1", "1>&2", ">&2", ">&-", "2>/dev/null", ">/dev/null", "&>f", "&>>f", "&>/dev/null", ">|f", "<>f", "<<<x", "3<f", "12>f", "{fd}>f", "a>f", "a2>f", ">$f", "> \"$(rm victim)\"", "<(ls)", ">(ls)", "<<'EOF'", "<<EOF", "<<-EOF", "<< 'E'",
  "é", "a\u00a0b", "a\rb", "\u0007", "(", ")", "((", "))", ";", ";;", "&", "&&", "||", "|", "|&", "\n", "'", '"', "`", "${", "a=(1 2)", "f()", "X=1", "GIT_SSH_COMMAND='rm victim'", "PAGER=x",
];
/** Command names: plain ones, wrappers (the commands they run are read too), forms the parser must read. */
const NAMES = ["rm", "ls", "echo", "a@b", "a%", "a?b", "false@", "git status", "grep -n x", "cat", "true", "false", "tee f", "xargs rm", "xargs -I{} rm {}", "env X=1 rm", "nice -n 5 rm", "timeout 5 rm", "sudo -u root rm", "command rm", "exec rm", "find . -exec rm {} \\;", "find . -name x -delete", "eval", "bash -c", "sh -c 'rm victim'", "bash", "$cmd", '"$cmd"', "'rm'", '"rm"', "r\\m", "/bin/rm", "$'rm'", "let", "read x", "declare -i x", "export X=1", "local x", "time", "[", "[[", "test -f x", "source x.sh", ". x.sh", "alias a='rm victim'", "trap 'rm victim' EXIT", "git -c core.pager=rm log", "watch rm", "ssh h rm", "X=1 rm", "X=1 Y=$(rm victim) ls", "GIT_SSH_COMMAND='rm victim' git fetch", "LD_PRELOAD=x ls", "do", "done", "for", "fi", "{", "}", "!"];

/** A random compound command: statements of every form the reader knows and many it must leave to the parser. */
export function generateCompound(random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const chance = (p: number): boolean => random() < p;
  const words = (n: number): string => Array.from({ length: n }, () => pick(WORDS)).join(chance(0.1) ? "" : " ");
  const simple = (): string => {
    if (chance(0.05)) return pick(["X=1", "X=1 Y=2", "X=$(rm victim)", "X=1 Y=$(rm victim)", "X=\"$f\" Y=$f", "a=b c=d e=f"]);
    let text = chance(0.15) ? `${pick(["X=1", "a=$(rm victim)", "b=\"$f\"", "c=", "d=x y", "e=~", "PATH=/bin:$PATH", "GIT_SSH_COMMAND='rm victim'"])} ` : "";
    text += pick(NAMES);
    if (text.endsWith("-c") || text.endsWith("eval")) return `${text} ${singleQuoted(statement(1))}`;
    text += ` ${words(Math.floor(random() * 4))}`;
    if (chance(0.3)) text += ` ${pick([">f", ">>log.txt", "2>&1", ">/dev/null 2>&1", "<in", "&>f", "2>/dev/null", "> \"$f\"", ">$(rm victim)", "2>&1 >/dev/null", "<<<x", ">f x"])}`;
    return text;
  };
  const body = (depth: number): string => {
    const n = 1 + Math.floor(random() * 3);
    return Array.from({ length: n }, () => statement(depth + 1)).join(pick(["; ", "\n", ";\n", " && ", " || ", " | ", "\n\n", "\n  "]));
  };
  const statement = (depth: number): string => {
    if (depth > 3 || chance(0.35)) return simple();
    const sep = (): string => pick(["; ", ";", "\n", " ;\n  "]);
    const redirect = (): string => (chance(0.2) ? ` ${pick(["> out", "2>&1", "< notes.txt", ">/dev/null", ">> \"$log\"", "| tail -n 5", "| rm victim", "&"])}` : "");
    switch (Math.floor(random() * 14)) {
      case 0:
        return `for ${pick(["f", "i", "_x", "1", "f g", "in"])} in ${words(1 + Math.floor(random() * 3))}${sep()}do ${body(depth)}${sep()}done${redirect()}`;
      case 1:
        return `${pick(["while", "until"])} ${body(depth)}${sep()}do ${body(depth)}${sep()}done${redirect()}`;
      case 2: {
        let text = `if ${body(depth)}${sep()}then ${body(depth)}`;
        if (chance(0.3)) text += `${sep()}elif ${body(depth)}${sep()}then ${body(depth)}`;
        if (chance(0.3)) text += `${sep()}else ${body(depth)}`;
        return `${text}${sep()}fi${redirect()}`;
      }
      case 3:
        return `{ ${body(depth)}${sep()}}${redirect()}`;
      case 4:
        return `(${body(depth)})${redirect()}`;
      case 5:
        return `! ${statement(depth + 1)}`;
      case 6:
        return `echo ${pick(['"$(', "$(", "x$("])}${body(depth)}${pick([')"', ")", ")x"])} ${words(1)}`;
      case 7:
        return `[ ${pick(["-f x", '"$f" = b', "$x -eq 1", "! -d d", "-n \"$(rm victim)\"", "a", "a b", "-z", "x = y -o z", "( a )", "a ] b"])} ]${pick([" && rm victim", "; ", " || echo no"])}`;
      case 8:
        return `${pick(["", "", "ls && ", "ls | ", "ls >f && ", "! "])}cat ${pick(["<<'EOF'", "<< 'EOF'", "<<EOF", '<<"EOF"', "<<-'EOF'", "<<'E F'"])}${pick(["", " | wc -l", " && rm victim", " > f", "; ls", " | (rm victim)", " >f 2>&1", " 2>/dev/null", " > f | wc -l", " >> \"$f\" && ls", " > /dev/null", " >$(rm victim)", " < in", " x", " > f x"])}\n${pick(["text", "$(rm victim)", "EOF x", " EOF", "a'b", "`id`", "EOFX", "x\nEOF\nmore"])}\n${pick(["EOF", "EOF ", " EOF", "EOFX\nEOF", ""])}`;
      case 9:
        return `case x in x) ${body(depth)};; esac`;
      case 10:
        return `f() { ${body(depth)}; }; f`;
      case 11:
        return `${pick(["((x++))", "echo $((x+1))", "[[ -f x ]]", "[[ $x -eq 1 ]]", "let x=1", "x=1; let x", "for ((i=0;i<2;i++)); do rm victim; done", "read x; echo $((x))"])}`;
      case 12:
        return `${pick(["bash -c", "sh -c", "eval", "sudo -u root bash -c", "env bash -c"])} ${singleQuoted(statement(depth + 1))}`;
      default:
        return `${statement(depth + 1)}${pick([" && ", " || ", " | ", "; ", "\n", " & ", " |& "])}${statement(depth + 1)}`;
    }
  };
  let command = statement(0);
  if (chance(0.15)) command += pick([" # comment 'x", " #'\ntouch X #'", "\n# done", " ;", "\n", " \\\n ls", " &"]);
  // Unbalanced and cut input: a random cut, a random character put in, a random character taken out.
  if (chance(0.1)) command = command.slice(0, Math.floor(random() * command.length));
  if (chance(0.1)) {
    const at = Math.floor(random() * (command.length + 1));
    command = command.slice(0, at) + pick(["'", '"', "(", ")", "`", "$", "#", "\\", "{", "}", ";", "\n", "|", "&", ">", "<", " ", "done", "fi", "$'"]) + command.slice(at);
  }
  if (chance(0.05)) {
    const at = Math.floor(random() * command.length);
    command = command.slice(0, at) + command.slice(at + 1);
  }
  return command;
}

/** Every string literal of the test files that check command rules. */
export function commandTestStrings(): string[] {
  const files = ["test/permissions/shell-rules.test.ts", "test/permissions/shell-forms.ts", "test/permissions/shell-plain.test.ts", "test/permissions/engine.test.ts", "test/permissions/sandbox.test.ts", "test/permissions/command-rules.test.ts", "test/e2e/shell-rules.test.ts", "test/e2e/permissions.test.ts"];
  const out: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(join(import.meta.dirname, "../..", file), "utf8"), ts.ScriptTarget.Latest);
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

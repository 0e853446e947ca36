/** The prompt's pieces without a terminal: key decoding, the edit buffer, the layout, the editor's actions. */
import { beforeAll, describe, expect, it } from "vitest";
import { EditBuffer } from "../../src/ui/editor/edit-buffer.js";
import { KeyDecoder, type KeyEvent } from "../../src/ui/editor/key-decoder.js";
import { LineEditor } from "../../src/ui/editor/line-editor.js";
import { layoutPrompt } from "../../src/ui/editor/prompt-layout.js";
import { completeSlashCommand, findSlashCommand, registerSlashCommand, SLASH_COMMANDS } from "../../src/cli/interactive/slash-commands.js";
import { loadDisplayWidth } from "../../src/ui/output/width.js";

beforeAll(() => loadDisplayWidth());

const key = (name: string): KeyEvent => ({ kind: "key", name } as KeyEvent);

describe("KeyDecoder", () => {
  it("decodes text, control keys, CSI and SS3 sequences, and Alt-Enter", () => {
    const d = new KeyDecoder();
    expect(d.feed("héllo 日本\r")).toEqual([{ kind: "text", text: "héllo 日本" }, key("enter")]);
    expect(d.feed("\x1b[A\x1bOB\x1b[1;5C\x1b[3~\x7f\x03\x04\t")).toEqual(
      ["up", "down", "word-right", "delete", "backspace", "interrupt", "eof", "tab"].map(key),
    );
    expect(d.feed("\x1b\r\x1b[13;2u\n")).toEqual([key("newline"), key("newline"), key("newline")]);
  });

  it("takes a bracketed paste as one event, whatever it holds, even split across reads", () => {
    const d = new KeyDecoder();
    expect(d.feed("a\x1b[200~line 1\r\nli")).toEqual([{ kind: "text", text: "a" }]);
    expect(d.feed("ne 2\x03\x1b[A\x1b[20")).toEqual([]);
    expect(d.feed("1~b")).toEqual([{ kind: "paste", text: "line 1\r\nline 2\x03\x1b[A" }, { kind: "text", text: "b" }]);
  });

  it("holds a lone Esc until flushed, and joins a sequence split across reads", () => {
    const d = new KeyDecoder();
    expect(d.feed("\x1b")).toEqual([]);
    expect(d.waiting).toBe(true);
    expect(d.flush()).toEqual([key("escape")]);
    expect(d.feed("\x1b[")).toEqual([]);
    expect(d.feed("D")).toEqual([key("left")]);
  });
});

describe("EditBuffer", () => {
  it("edits by characters (an emoji with a modifier is one), words and lines", () => {
    const b = new EditBuffer();
    b.insert("hi 👍🏽");
    b.backspace();
    expect(b.text).toBe("hi ");
    b.insert("there friend");
    b.deleteWordBefore();
    expect(b.text).toBe("hi there ");
    b.home();
    b.wordRight();
    expect(b.cursor).toBe(2);
    b.set("one\ntwo three\nx");
    expect(b.up()).toBe(true);
    expect(b.cursor).toBe("one\nt".length);
    expect(b.up()).toBe(true);
    expect(b.up()).toBe(false);
    b.end();
    expect(b.down()).toBe(true);
    expect(b.cursor).toBe("one\ntwo".length);
    b.deleteToEnd();
    expect(b.text).toBe("one\ntwo\nx");
  });

  it("moves up onto an empty first line", () => {
    const b = new EditBuffer();
    b.set("\nabc");
    expect(b.up()).toBe(true);
    expect(b.cursor).toBe(0);
  });
});

describe("layoutPrompt", () => {
  it("wraps by display columns, continuation lines indented, the cursor placed", () => {
    const layout = layoutPrompt("日本語のテキスト\nab", 3, 10);
    expect(layout.rows).toEqual(["> 日本語の", "テキスト", "  ab"]);
    expect(layout.widths).toEqual([10, 8, 4]);
    expect([layout.cursorRow, layout.cursorColumn]).toEqual([0, 8]);
  });

  it("puts a cursor after a full row at the start of the next", () => {
    const layout = layoutPrompt("abcdefgh", 8, 10);
    expect(layout.rows).toEqual(["> abcdefgh", ""]);
    expect([layout.cursorRow, layout.cursorColumn]).toEqual([1, 0]);
  });
});

describe("LineEditor", () => {
  function editor(): { editor: LineEditor; screen: string[] } {
    const screen: string[] = [];
    const e = new LineEditor({ write: (t: string) => screen.push(t), columns: 40, rows: 10 }, { complete: completeSlashCommand });
    return { editor: e, screen };
  }

  it.each([
    ["reports no size (0 × 0: a pseudo-terminal nobody sized)", 0, 0],
    ["is two rows high", 40, 2],
  ])("draws the prompt and its footer on a terminal that %s", (_what, columns, rows) => {
    const screen: string[] = [];
    const e = new LineEditor({ write: (t: string) => screen.push(t), columns, rows }, { footer: () => "status" });
    e.show();
    e.handle({ kind: "text", text: "hello" });
    const drawn = screen.join("");
    expect(drawn).toContain("> ");
    expect(drawn).toContain("hello");
    expect(drawn).toContain("status");
  });

  it("submits on Enter; a trailing backslash or Alt-Enter adds a line instead; a paste keeps its lines", () => {
    const { editor: e } = editor();
    e.handle({ kind: "text", text: "one\\" });
    expect(e.handle(key("enter"))).toBeUndefined();
    e.handle({ kind: "paste", text: "two\r\nthree\x1b[2J" });
    e.handle(key("newline"));
    e.handle({ kind: "text", text: "four" });
    expect(e.handle(key("enter"))).toEqual({ type: "submit", text: "one\ntwo\nthree\nfour" });
    expect(e.text).toBe("");
  });

  it("edits while hidden without drawing; Ctrl-D exits only on an empty prompt", () => {
    const { editor: e, screen } = editor();
    e.handle({ kind: "text", text: "ab" });
    e.handle(key("left"));
    expect(e.handle(key("eof"))).toBeUndefined();
    expect(e.text).toBe("a");
    expect(screen).toEqual([]);
    e.handle(key("backspace"));
    expect(e.handle(key("eof"))).toEqual({ type: "eof" });
  });

  it("recalls the history with Up and Down, keeping the text being typed", () => {
    const { editor: e } = editor();
    e.addHistory("first");
    e.addHistory("second");
    e.show();
    e.handle({ kind: "text", text: "draft" });
    e.handle(key("up"));
    expect(e.text).toBe("second");
    e.handle(key("up"));
    e.handle(key("up"));
    expect(e.text).toBe("first");
    e.handle(key("down"));
    e.handle(key("down"));
    expect(e.text).toBe("draft");
  });

  it("completes slash commands with Tab", () => {
    const { editor: e } = editor();
    e.handle({ kind: "text", text: "/he" });
    e.handle(key("tab"));
    expect(e.text).toBe("/help ");
    // Every command and alias, once each.
    expect(completeSlashCommand("/")).toEqual(SLASH_COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]).map((n) => `/${n} `));
    expect(completeSlashCommand("/qu")).toEqual(["/quit "]);
    expect(completeSlashCommand("/m")).toEqual(["/model ", "/mode "]);
    expect(completeSlashCommand("hello /he")).toEqual([]);
  });
});

describe("findSlashCommand", () => {
  it("ignores case and spaces around the name", () => {
    for (const line of ["/HELP", " / help ", "/Help"]) expect(findSlashCommand(line)).toMatchObject({ command: { name: "help" } });
    expect(findSlashCommand("/Model  gpt-4o ")).toMatchObject({ command: { name: "model" }, args: "gpt-4o" });
    expect(findSlashCommand("/nope")).toEqual({ unknown: "nope" });
    expect(findSlashCommand("/QUIT")).toMatchObject({ command: { name: "exit" } });
  });
});

describe("registerSlashCommand", () => {
  it("adds a command others find and complete; a taken or bad name is refused with the reason, nothing replaced", () => {
    const before = SLASH_COMMANDS.length;
    expect(registerSlashCommand({ name: "Deploy-App", summary: "ships it", run: () => {} })).toBeUndefined();
    try {
      expect(findSlashCommand("/deploy-app now")).toMatchObject({ command: { name: "deploy-app", summary: "ships it" }, args: "now" });
      expect(completeSlashCommand("/dep")).toEqual(["/deploy-app "]);
      expect(registerSlashCommand({ name: "help", summary: "mine", run: () => {} })).toBe('"/help" is already a command');
      expect(registerSlashCommand({ name: "x", aliases: ["quit"], summary: "mine", run: () => {} })).toBe('"/quit" is already a command');
      expect(registerSlashCommand({ name: "two words", summary: "bad", run: () => {} })).toMatch(/is not a command name/);
      expect(SLASH_COMMANDS.length).toBe(before + 1);
      expect(findSlashCommand("/help")).toMatchObject({ command: { summary: "list the commands and keys" } });
    } finally {
      SLASH_COMMANDS.splice(before);
    }
  });
});

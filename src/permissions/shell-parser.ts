/**
 * The bash parser the permission engine reads commands with (SPEC §13): tree-sitter's bash grammar run by
 * `web-tree-sitter` (WebAssembly, no native code, no install script). Loaded once, lazily, the first time a
 * command is checked (`loadShellParser`, command-reading.ts), so a run that checks no command never pays for it; after that,
 * parsing is synchronous (`parseShell`). The tree comes back as plain objects, copied in one pass of a tree
 * cursor: reading web-tree-sitter's nodes one property at a time costs a call into WebAssembly each.
 */
import { createRequire } from "node:module";
import type { Language, Parser, TreeCursor } from "web-tree-sitter";

/** A node of the syntax tree (tree-sitter-bash's node types; `ERROR` where the parser found none). */
export interface ShellNode {
  type: string;
  /** False for punctuation and keywords (`;`, `"`, `do`). */
  isNamed: boolean;
  /** Put in by the parser where the text lacks it (a missing `fi`): the text is no valid bash. */
  isMissing: boolean;
  /** The node's field in its parent (`name`, `value`, `destination`), if any; read for FIELD_PARENTS' children only. */
  field: string | null;
  /** Offsets in the parsed string (UTF-16 code units, as JavaScript indexes strings). */
  startIndex: number;
  endIndex: number;
  children: ShellNode[];
  parent: ShellNode | undefined;
}

let parser: Parser | undefined;
/** The grammar's node types and fields by id: the cursor gives ids cheaper than names. */
let names: { types: string[]; named: boolean[]; fields: (string | null)[] } | undefined;
let loading: Promise<void> | undefined;
let failure: string | undefined;

/**
 * Loads the parser (once; later calls return the same promise). Never rejects: a parser that cannot load
 * leaves every command unresolvable (`parseShell` says why), which asks or denies, never allows.
 */
export function loadBashGrammar(): Promise<void> {
  loading ??= (async () => {
    try {
      const { Parser: ParserClass, Language } = await import("web-tree-sitter");
      await ParserClass.init();
      const grammar = createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
      const language = await Language.load(grammar);
      const made = new ParserClass();
      made.setLanguage(language);
      names = namesOf(language);
      parser = made;
    } catch (error) {
      failure = `the shell parser could not load (${(error as Error).message})`;
    }
  })();
  return loading;
}

/** Whether the parser has loaded, or failed to for good: until then `parseShell` says it is not loaded yet. */
export function shellParserSettled(): boolean {
  return parser !== undefined || failure !== undefined;
}

/** The nodes whose children's fields are read (shell-commands.ts): asking every node for its field costs a call each. */
const FIELD_PARENTS = new Set(["variable_assignment", "for_statement", "subscript", "file_redirect"]);

/** A parsed command's syntax tree, or why there is none. */
export type ShellParse = { ok: true; root: ShellNode } | { ok: false; reason: string };

/** Parses `source` as bash; not ok when the parser is not loaded (see `loadBashGrammar`) or could not load. */
export function parseShell(source: string): ShellParse {
  if (!parser || !names) return { ok: false, reason: failure ?? "the shell parser is not loaded yet" };
  const tree = parser.parse(source);
  if (!tree) return { ok: false, reason: "the shell parser gave up on it" };
  const cursor = tree.walk();
  try {
    // A missing node (a `fi` the text lacks) shows only as an error of the whole tree: marked on the root.
    const root = copyTree(cursor, names);
    root.isMissing = tree.rootNode.hasError && !hasErrorNode(root);
    return { ok: true, root };
  } finally {
    cursor.delete();
    tree.delete();
  }
}

/** The tree below the cursor's node as plain objects (iteratively: a deep tree must not overflow the stack). */
function copyTree(cursor: TreeCursor, { types, named, fields }: NonNullable<typeof names>): ShellNode {
  const copy = (parent: ShellNode | undefined): ShellNode => {
    const id = cursor.nodeTypeId;
    return {
      type: types[id] ?? "ERROR",
      isNamed: named[id] ?? true,
      isMissing: false,
      field: parent && FIELD_PARENTS.has(parent.type) ? (fields[cursor.currentFieldId] ?? null) : null,
      startIndex: cursor.startIndex,
      endIndex: cursor.endIndex,
      children: [],
      parent,
    };
  };
  const root = copy(undefined);
  let node = root;
  for (;;) {
    if (cursor.gotoFirstChild()) {
      const child = copy(node);
      node.children.push(child);
      node = child;
      continue;
    }
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) return root;
      node = node.parent!;
    }
    const sibling = copy(node.parent);
    node.parent!.children.push(sibling);
    node = sibling;
  }
}

function namesOf(language: Language): NonNullable<typeof names> {
  const types: string[] = [];
  const named: boolean[] = [];
  for (let id = 0; id < language.nodeTypeCount; id++) {
    types.push(language.nodeTypeForId(id) ?? "ERROR");
    named.push(language.nodeTypeIsNamed(id));
  }
  // The id of ERROR nodes (65535) is no index of the table: `types[id] ?? "ERROR"` reads it.
  const fields: (string | null)[] = [null];
  for (let id = 1; id <= language.fieldCount; id++) fields.push(language.fieldNameForId(id));
  return { types, named, fields };
}

function hasErrorNode(root: ShellNode): boolean {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === "ERROR") return true;
    stack.push(...node.children);
  }
  return false;
}

/**
 * Code fences coloured by language with highlight.js: its core and each language are loaded the first time a
 * fence asks for them (in the background: until then the code shows plain, and the caller draws again when
 * `whenLoaded` fires). Output is one string per line of code, each line self-contained (its colour opened at
 * its start and closed at its end), so any line can be redrawn alone.
 */
import type { HLJSApi } from "highlight.js";

/** Fence names that differ from highlight.js's module names. */
const MODULES: Record<string, string> = {
  ts: "typescript", tsx: "typescript", js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript",
  sh: "bash", shell: "bash", zsh: "bash", console: "bash", shellsession: "bash", py: "python", yml: "yaml",
  rs: "rust", golang: "go", html: "xml", svg: "xml", "c++": "cpp", cc: "cpp", hpp: "cpp", h: "c", jsonc: "json",
  json5: "json", toml: "ini", md: "markdown", rb: "ruby", kt: "kotlin", cs: "csharp", ps1: "powershell", patch: "diff",
};

/** SGR foreground colours by highlight.js scope (the first class of a span). */
const COLORS: Record<string, string> = {
  keyword: "35", built_in: "36", type: "36", literal: "33", number: "33", string: "32", regexp: "31", symbol: "33",
  comment: "90", quote: "90", doctag: "90", meta: "90", title: "34", section: "34", name: "34", tag: "34",
  attr: "36", attribute: "36", property: "36", selector: "35", variable: "31", "template-variable": "31",
  addition: "32", deletion: "31", bullet: "33", link: "34", params: "39", subst: "39",
};

let hljs: HLJSApi | undefined;
let core: Promise<HLJSApi | undefined> | undefined;
const languages = new Map<string, Promise<boolean>>();
const listeners = new Set<() => void>();

/** Calls `listener` each time a language finishes loading (code drawn before can now be coloured). */
export function whenLoaded(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The code's lines coloured for `lang`; undefined while it loads or when it is unknown (shown plain). */
export function highlightLines(code: string, lang: string): string[] | undefined {
  const name = MODULES[lang.toLowerCase()] ?? lang.toLowerCase();
  if (!/^[a-z0-9-]+$/.test(name)) return undefined;
  if (!languages.has(name)) languages.set(name, load(name));
  if (!hljs?.getLanguage(name)) return undefined;
  try {
    return toLines(hljs.highlight(code, { language: name, ignoreIllegals: true }).value);
  } catch {
    return undefined;
  }
}

/** Loads highlight.js's core (no language yet), so the first code fence does not wait for it. */
export function loadHighlighter(): Promise<HLJSApi | undefined> {
  core ??= import("highlight.js/lib/core").then(
    (module) => (hljs = module.default),
    () => undefined,
  );
  return core;
}

async function load(name: string): Promise<boolean> {
  const api = await loadHighlighter();
  if (!api) return false;
  try {
    const language = (await import(`highlight.js/lib/languages/${name}`)) as { default: Parameters<HLJSApi["registerLanguage"]>[1] };
    api.registerLanguage(name, language.default);
  } catch {
    return false; // a language highlight.js does not have: plain
  }
  for (const listener of listeners) listener();
  return true;
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'", "&#39;": "'" };

/** highlight.js's HTML as terminal lines. */
function toLines(html: string): string[] {
  const lines: string[] = [];
  const stack: string[] = [];
  let line = "";
  const colour = () => stack.findLast((c) => c !== "") ?? "";
  const open = () => (colour() ? `\x1b[${colour()}m` : "");
  for (const [token] of html.matchAll(/<span class="([^"]*)">|<\/span>|&[#\w]+;|\n|[^<&\n]+/g)) {
    if (token.startsWith("<span")) {
      const scope = /class="hljs-([\w-]+)/.exec(token)?.[1] ?? "";
      stack.push(COLORS[scope] ?? "");
      line += open();
    } else if (token === "</span>") {
      stack.pop();
      line += colour() ? `\x1b[${colour()}m` : "\x1b[39m";
    } else if (token === "\n") {
      lines.push(colour() ? `${line}\x1b[39m` : line);
      line = open();
    } else {
      line += ENTITIES[token] ?? token;
    }
  }
  lines.push(line);
  return lines;
}

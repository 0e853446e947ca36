/**
 * A web page as readable Markdown (`awl.web.markdown`, docs/extension-api.md): the page is parsed with linkedom,
 * its main content found with Mozilla's Readability (Firefox's reader view: navigation, ads and footers left out),
 * and converted with Turndown; a page Readability finds no article in is converted whole (scripts, styles and
 * navigation removed). (node-html-markdown was tried first: ~8× slower than Turndown on a 200 KB article.) The libraries load on the first use only (they cost tens of ms), through
 * `require`, so neither awl's start nor a Lua worker's loads them.
 */
import { createRequire } from "node:module";
import { packagePath } from "../util/package-path.js";

export interface PageMarkdown {
  title: string;
  markdown: string;
  /** Whether Readability found an article (else the whole page was converted). */
  article: boolean;
}

interface Libraries {
  parseHTML(html: string): { document: DomDocument };
  Readability: new (doc: DomDocument, options?: object) => { parse(): { title?: string | null; content?: string | null } | null };
  TurndownService: new (options?: object) => { turndown(html: string): string; remove(filter: string[]): void };
}

/** The little of a DOM document this module touches. */
interface DomDocument {
  title: string;
  body: { innerHTML: string } | null;
  querySelectorAll(selector: string): Iterable<{ remove(): void }>;
  querySelector(selector: string): { setAttribute(name: string, value: string): void } | null;
  head: { prepend?(node: unknown): void } | null;
  createElement(name: string): { setAttribute(name: string, value: string): void };
}

let libraries: Libraries | undefined;

function load(): Libraries {
  if (libraries) return libraries;
  const require = createRequire(packagePath("package.json"));
  const { parseHTML } = require("linkedom") as Pick<Libraries, "parseHTML">;
  const { Readability } = require("@mozilla/readability") as Pick<Libraries, "Readability">;
  const TurndownService = require("turndown") as Libraries["TurndownService"];
  return (libraries = { parseHTML, Readability, TurndownService });
}

/** Tags that are never content. */
const CHROME = "script, style, noscript, template, iframe, svg, nav, header, footer, aside, form, [role=navigation], [aria-hidden=true]";

/** The page's main content as Markdown, links made absolute against `url`. */
export function pageMarkdown(html: string, url: string): PageMarkdown {
  const { parseHTML, Readability, TurndownService } = load();
  const { document } = parseHTML(withBase(html, url));
  const title = (document.title ?? "").trim();
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    article = new Readability(document, { charThreshold: 200 }).parse();
  } catch {
    article = null; // a page Readability cannot read is converted whole below
  }
  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  turndown.remove(["script", "style", "noscript", "template", "iframe"]);
  const translate = (fragment: string) => turndown.turndown(fragment).trim();
  if (article?.content) return { title: (article.title ?? title).trim(), markdown: translate(article.content), article: true };
  const whole = parseHTML(html).document;
  for (const node of whole.querySelectorAll(CHROME)) node.remove();
  return { title, markdown: translate(whole.body?.innerHTML ?? html), article: false };
}

/** The page with a `<base href>` of its URL (when it has none), so Readability makes its links absolute. */
function withBase(html: string, url: string): string {
  if (/<base\s[^>]*href/i.test(html.slice(0, 4096))) return html;
  const base = `<base href="${url.replace(/"/g, "&quot;")}">`;
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (head) => head + base) : base + html;
}

/**
 * The web pages a text cites (the provider's own web search, docs/std-tools.md "search"), as printed under the
 * answer: each page once, in the order first cited, its title (when the provider gave one) and URL.
 */
import type { Citation } from "../../model/blocks.js";
import { stripControls } from "../safe-text.js";

/** `Sources:` and one line per page, or "" for none. */
export function sourcesText(citations: readonly Citation[]): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const { url, title } of citations) {
    if (seen.has(url)) continue;
    seen.add(url);
    const name = title?.trim() ? `${stripControls(title.trim())} — ` : "";
    lines.push(`  [${lines.length + 1}] ${name}${stripControls(url)}`);
  }
  return lines.length === 0 ? "" : `Sources:\n${lines.join("\n")}\n`;
}

/**
 * A failed tool call's text as every wire sends it: marked, so a model knows the call failed. OpenAI-compatible tool
 * messages have no error flag at all; Anthropic's `is_error` is sent too, but an Anthropic-compatible endpoint serving
 * another model may drop it, and Claude Code marks the text beside the flag as well.
 */

/** What a failed tool call's text starts with on the wire. */
export const TOOL_ERROR_PREFIX = "Error: ";

/** The text a failed call's result goes with: `Error: ` and its text, or a word that it failed when it has none. */
export function markedErrorText(content: string): string {
  return `${TOOL_ERROR_PREFIX}${content === "" ? "the call failed and said nothing more" : content}`;
}

/**
 * The std file tools' text through the editor: when the client offers `fs/read_text_file` and
 * `fs/write_text_file`, `awl.fs.read_text` / `write_text` go to it, so a read sees unsaved buffers and the
 * editor records each edit (it saves it to disk itself). Reads are of the whole file; awl cuts the lines asked for.
 */
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk";
import type { TextHost } from "../extensions/lua/types.js";

/** The client's file system, when it offers both halves (otherwise the tools use the disk). */
export function clientTextHost(capabilities: ClientCapabilities, client: AgentContext, sessionId: string): TextHost | undefined {
  if (!capabilities.fs?.readTextFile || !capabilities.fs.writeTextFile) return undefined;
  return {
    readText: async (path) => (await client.request("fs/read_text_file", { sessionId, path })).content,
    writeText: async (path, content) => {
      await client.request("fs/write_text_file", { sessionId, path, content });
    },
  };
}

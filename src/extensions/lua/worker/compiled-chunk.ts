/**
 * awl's runtime as bytecode (scripts/compile-lua-runtime.mjs dumps it at build time): the chunks name their
 * source with a mark, which is replaced here by the folder the runtime is in, so that Lua's messages and
 * tracebacks name the real file wherever the package was built.
 */

/** The folder a compiled chunk of the runtime names as its source (`@<awl-runtime>/awl.lua`). */
export const RUNTIME_SOURCE_MARK = "<awl-runtime>";

/** Lua 5.4's binary header on wasm32: signature, version 5.4, format 0, LUAC_DATA, then the sizes and checks. */
const HEADER = [0x1b, 0x4c, 0x75, 0x61, 0x54, 0x00, 0x19, 0x93, 0x0d, 0x0a, 0x1a, 0x0a, 0x04, 0x08, 0x08];
/** The header's length (with LUAC_INT and LUAC_NUM), then one byte (the main function's upvalue count). */
const SOURCE_AT = 31 + 1;

/**
 * `chunk` with its source (`@<awl-runtime>/NAME`) naming `folder` instead, or undefined when it is not a chunk
 * dumped that way (another Lua, a damaged file): the caller then loads the text.
 */
export function chunkFromFolder(chunk: Uint8Array, folder: string): Uint8Array | undefined {
  if (chunk.length < SOURCE_AT + 2 || HEADER.some((byte, i) => chunk[i] !== byte)) return undefined;
  // A string is its length + 1 in 7-bit groups, most significant first, the last group marked with 0x80.
  let size = 0;
  let at = SOURCE_AT;
  for (;;) {
    const byte = chunk[at++];
    if (byte === undefined || at - SOURCE_AT > 4) return undefined;
    size = (size << 7) | (byte & 0x7f);
    if (byte & 0x80) break;
  }
  const source = Buffer.from(chunk.subarray(at, at + size - 1)).toString("utf8");
  const mark = `@${RUNTIME_SOURCE_MARK}/`;
  if (size < 1 || !source.startsWith(mark)) return undefined;
  const renamed = Buffer.from(`@${folder}/${source.slice(mark.length)}`, "utf8");
  return Buffer.concat([chunk.subarray(0, SOURCE_AT), sizeBytes(renamed.length + 1), renamed, chunk.subarray(at + size - 1)]);
}

function sizeBytes(size: number): Uint8Array {
  const groups = [size & 0x7f];
  for (let rest = size >>> 7; rest !== 0; rest >>>= 7) groups.unshift(rest & 0x7f);
  groups[groups.length - 1]! |= 0x80;
  return Uint8Array.from(groups);
}

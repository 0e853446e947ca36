/**
 * Lua bytecode the build made (scripts/compile-lua.mjs: awl's runtime and bundled extensions, dumped with
 * their debug information): the chunk's source is set to the file it is loaded for, so that Lua's messages and
 * tracebacks name the real file wherever the package was built.
 */

/** Lua 5.4's binary header on wasm32: signature, version 5.4, format 0, LUAC_DATA, then the sizes and checks. */
const HEADER = [0x1b, 0x4c, 0x75, 0x61, 0x54, 0x00, 0x19, 0x93, 0x0d, 0x0a, 0x1a, 0x0a, 0x04, 0x08, 0x08];
/** The header's length (with LUAC_INT and LUAC_NUM), then one byte (the main function's upvalue count). */
const SOURCE_AT = 31 + 1;

/**
 * `chunk` with its source naming `file` (`@FILE`, as a text chunk loaded from it would), or undefined when it is
 * not a Lua 5.4 chunk with a source (another Lua, a stripped or damaged file): the caller then loads the text.
 */
export function chunkNamed(chunk: Uint8Array, file: string): Uint8Array | undefined {
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
  if (size < 1 || at + size - 1 > chunk.length) return undefined;
  const source = Buffer.from(`@${file}`, "utf8");
  return Buffer.concat([chunk.subarray(0, SOURCE_AT), sizeBytes(source.length + 1), source, chunk.subarray(at + size - 1)]);
}

function sizeBytes(size: number): Uint8Array {
  const groups = [size & 0x7f];
  for (let rest = size >>> 7; rest !== 0; rest >>>= 7) groups.unshift(rest & 0x7f);
  groups[groups.length - 1]! |= 0x80;
  return Uint8Array.from(groups);
}

/**
 * The code cache check of awl's main thread (cli/compile-cache.ts): SHA-256, since `node:crypto` is loaded by awl's
 * start anyway and `node:zlib` is not (≈ 1 ms). Its own module, so that a Lua worker's loader, which checks its cache
 * with WORD_CHECK, does not load `node:crypto`.
 */
import { createHash } from "node:crypto";
import type { CodeCacheCheck } from "./code-cache-file.js";

export const SHA256_CHECK: CodeCacheCheck = {
  magic: 0x324c5741, // "AWL2"
  digest: (data) => createHash("sha256").update(data).digest(),
};

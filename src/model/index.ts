export * from "./blocks.js";
export * from "./message.js";
export * from "./conversation.js";
export * from "./json.js";
export { TextBuffer } from "./text-buffer.js";
export { MAX_PROMPT_IMAGE_BYTES, promptImage } from "./images.js";
export { applyCompaction, prunedOutputText, summaryMessageText, type CompactionChange } from "./compaction.js";

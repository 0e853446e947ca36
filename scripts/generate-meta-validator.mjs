// Writes src/tools/meta-validator.generated.ts: ajv's validator for the JSON Schema draft-07 meta-schema, as
// plain code. Checking a tool's schema with it needs neither ajv (≈ 35 ms to import) nor compiling the
// meta-schema (≈ 35 ms more), which a start-up with a cold registration cache would otherwise pay.
// Run after `npm run build` (it reads ajv's options from dist/) whenever ajv or those options change; a test
// fails while the file is stale.
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import Ajv from "ajv";
import { standaloneModule } from "./standalone-module.mjs";

export const DRAFT_07 = "http://json-schema.org/draft-07/schema";
export const GENERATED_FILE = fileURLToPath(new URL("../src/tools/meta-validator.generated.ts", import.meta.url));

/** The module's text for ajv's `options` (the ones src/tools/validate-input.ts uses). */
export function metaValidatorSource(options) {
  const ajv = new Ajv.default({ ...options, code: { source: true, esm: true } });
  return standaloneModule(ajv, ajv.getSchema(DRAFT_07), "scripts/generate-meta-validator.mjs from ajv's draft-07 meta-schema");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { AJV_OPTIONS } = await import("../dist/tools/validate-input.js");
  writeFileSync(GENERATED_FILE, metaValidatorSource(AJV_OPTIONS));
  console.log(`wrote ${GENERATED_FILE}`);
}

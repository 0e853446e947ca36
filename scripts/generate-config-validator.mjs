// Writes src/config/config-validator.generated.ts: ajv's validator for schema/config.schema.json, as plain code,
// so that reading a config file (on every run's path) needs neither ajv (≈ 35 ms to import) nor compiling the
// schema. Run it whenever the schema changes (`node scripts/generate-config-validator.mjs`); a test fails while
// the file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import Ajv from "ajv";
import { standaloneModule } from "./standalone-module.mjs";

export const SCHEMA_FILE = fileURLToPath(new URL("../schema/config.schema.json", import.meta.url));
export const GENERATED_FILE = fileURLToPath(new URL("../src/config/config-validator.generated.ts", import.meta.url));

/** The generated module's text for the schema as it is on disk. */
export function configValidatorSource() {
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, "utf8"));
  // allErrors: one run reports every unknown key and every wrong value, not only the first. No messages: the
  // words come from the schema (src/config/schema-errors.ts), and a smaller module loads faster.
  const ajv = new Ajv.default({ allErrors: true, strict: true, messages: false, code: { source: true, esm: true } });
  return standaloneModule(ajv, ajv.compile(schema), "scripts/generate-config-validator.mjs from schema/config.schema.json");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(GENERATED_FILE, configValidatorSource());
  console.log(`wrote ${GENERATED_FILE}`);
}

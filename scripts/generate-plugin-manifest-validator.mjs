// Writes src/plugins/manifest-validator.generated.ts: ajv's validator for the Agent Plugins 1.0.0 manifest schema
// (schema/agent-plugins/1.0.0/plugin.schema.json, vendored from the specification), as plain code, so that reading
// an installed plugin's manifest (on every run's path) needs neither ajv nor compiling the schema. Run it whenever
// the schema changes (`node scripts/generate-plugin-manifest-validator.mjs`); a test fails while the file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import { standaloneModule } from "./standalone-module.mjs";

export const SCHEMA_FILE = fileURLToPath(new URL("../schema/agent-plugins/1.0.0/plugin.schema.json", import.meta.url));
export const GENERATED_FILE = fileURLToPath(new URL("../src/plugins/manifest-validator.generated.ts", import.meta.url));

/** The generated module's text for the schema as it is on disk. */
export function manifestValidatorSource() {
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, "utf8"));
  // allErrors: every unknown field is reported (as a notice) beside the first real fault. No messages: the words
  // come from src/plugins/manifest.ts.
  const ajv = new Ajv2020.default({ allErrors: true, strict: true, messages: false, code: { source: true, esm: true } });
  return standaloneModule(ajv, ajv.compile(schema), "scripts/generate-plugin-manifest-validator.mjs from schema/agent-plugins/1.0.0/plugin.schema.json");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(GENERATED_FILE, manifestValidatorSource());
  console.log(`wrote ${GENERATED_FILE}`);
}

// Writes the plugin validators from awl's schemas of the Agent Plugins 1.0.0 files (schema/plugins/: awl's own
// statement of the specification's rules) as plain code, so that checking a package needs neither ajv nor compiling a schema:
// - src/plugins/manifest-validator.generated.ts: `plugin-manifest.schema.json` (a package's manifest, checked at install);
// - src/plugins/mcp-validator.generated.ts: `plugin-mcp.schema.json`, the whole file (`validate`) and each server variant
//   on its own (`stdio`, `streamableHttp`, `sse`: the spec's `$defs`, so that one bad server is skipped alone).
// Run it whenever a schema changes (`node scripts/generate-plugin-validators.mjs`); a test fails while a file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import { standaloneModule } from "./standalone-module.mjs";

const at = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));

/** Each generated file and the schema it is made of. */
export const VALIDATORS = [
  { file: at("src/plugins/manifest-validator.generated.ts"), schema: "schema/plugins/plugin-manifest.schema.json", exports: () => undefined },
  {
    file: at("src/plugins/mcp-validator.generated.ts"),
    schema: "schema/plugins/plugin-mcp.schema.json",
    exports: (id) => ({ validate: id, stdio: `${id}#/$defs/stdioServer`, streamableHttp: `${id}#/$defs/streamableHttpServer`, sse: `${id}#/$defs/sseServer` }),
    // Every run that reads a plugin's mcp.json loads this module (in the start-up chunk): ajv's unicode string
    // length would make it require() ajv's runtime at load, for every run. Its only length rules are minLength 1,
    // which a string meets in UTF-16 units exactly when it does in code points.
    options: { unicode: false },
  },
];

/** The generated module's text for `validator`'s schema as it is on disk. */
export function validatorSource(validator) {
  const schema = JSON.parse(readFileSync(at(validator.schema), "utf8"));
  // allErrors: every unknown field is reported beside the first real fault. No messages: the words come from
  // src/plugins/manifest.ts and src/plugins/plugin-mcp.ts.
  const ajv = new Ajv2020.default({ allErrors: true, strict: true, messages: false, code: { source: true, esm: true }, ...validator.options });
  const origin = `scripts/generate-plugin-validators.mjs from ${validator.schema}`;
  const names = validator.exports(schema.$id);
  if (!names) return standaloneModule(ajv, ajv.compile(schema), origin);
  ajv.addSchema(schema);
  return standaloneModule(ajv, names, origin);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const validator of VALIDATORS) {
    writeFileSync(validator.file, validatorSource(validator));
    console.log(`wrote ${validator.file}`);
  }
}

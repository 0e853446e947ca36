// Loaded with `node --import` (NODE_OPTIONS): registers a resolve hook that appends every module URL the process
// resolves to the file $AWL_IMPORT_LOG, so a test can see which modules a run of the built awl loaded.
import { register } from "node:module";

register("data:text/javascript," + encodeURIComponent(`
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (process.env.AWL_IMPORT_LOG) appendFileSync(process.env.AWL_IMPORT_LOG, resolved.url + "\\n");
  return resolved;
}`));

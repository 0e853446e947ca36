/** A real Lua extension offering `get_weather`, for the CLI tests of each provider's tool loop. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A folder holding `weather.lua`, whose tool answers "weather in LOCATION". */
export function weatherExtension(): string {
  const dir = mkdtempSync(join(tmpdir(), "awl-weather-"));
  writeFileSync(
    join(dir, "weather.lua"),
    `awl.register_tool("get_weather", { type = "object", properties = { location = { type = "string" } } }, function(input) return "weather in " .. input.location end)\n`,
  );
  return dir;
}

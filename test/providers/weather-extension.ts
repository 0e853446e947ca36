/** A real Lua extension offering `get_weather`, for the CLI tests of each provider's tool loop. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/temp-dir.js";

/** A folder holding `weather.lua`, whose tool answers "weather in LOCATION". */
export function weatherExtension(): string {
  const dir = tempDir("awl-weather-");
  writeFileSync(
    join(dir, "weather.lua"),
    `awl.register_tool("get_weather", { type = "object", properties = { location = { type = "string" } } }, function(input) return "weather in " .. input.location end)\n`,
  );
  return dir;
}

/** For tools in the tmux tests that hold their call open until the test says so. */

/** Lua that waits until the file `args.gate` exists (a tool's `run` stays running until the test creates it). */
export const WAIT_FOR_GATE = `
    while true do
      local f = io.open(args.gate)
      if f then f:close() break end
      os.execute("sleep 0.05")
    end`;

---@meta awl
-- LuaCATS declarations of awl's Lua API (API version 1), for lua-language-server: completion, hover
-- docs and type checks while writing an extension. This file is never run. Point your editor at it,
-- e.g. in .luarc.json: { "workspace.library": ["<awl package>/docs/lua"] }.
-- Reference: docs/extension-api.md.

---@class awl
---@field version string API version ("1"); changes only when the API changes incompatibly.
---@field json awl.json The JSON codec awl uses for tool input, schemas and results.
---@field fs awl.fs Files and folders: metadata, listings, walks, search, text read and written.
---@field base64 awl.base64 Base64 encoding (images in results).
---@field http awl.http HTTP requests made by awl, each checked per host by the permission engine.
---@field web awl.web What web tools need besides requests (a page as Markdown).
awl = {}

---@alias awl.ToolKind "read"|"write"|"exec"|"network"

---@class awl.ToolSpec
---@field name string What the model calls (`^[a-zA-Z0-9_-]{1,64}$`).
---@field description? string What the model reads to decide (default: the schema's description, else "").
---@field parameters? table JSON Schema of the input (default: `{ type = "object", properties = {} }`).
---@field run fun(args: table, ctx: awl.Context): (string|awl.Result|awl.ToolError) The handler.
---@field render? fun(state: any, view: awl.RenderView): (string|string[]) Draws the tool's block from the last `ctx:show` state.
---@field available? fun(ctx: awl.Context): boolean Whether to offer the tool at all.
---@field parallel? boolean false: never run beside other calls (default true).
---@field timeout? number Seconds a call may run.
---@field kinds? awl.ToolKind[] What the tool may do, for permissions (default `{ "exec" }`).

---@class awl.RenderView
---@field width integer
---@field height integer
---@field expand boolean The user's full-output toggle.

---@class awl.Result
---@field content string|number What the model reads.
---@field is_error? boolean A failure the model can act on.
---@field summary? string One line for the interface.
---@field details? any JSON-able data for the interface.
---@field images? { media_type: string, data: string }[] Base64 images the model sees.
---@field prompt? string A command's only: the prompt sent to the model (docs/commands.md).
---@field attachments? string[] A command's only: files attached to `prompt`, as `@path` attaches them.

---@class awl.ToolError
---@field message string

---@class awl.Host
---@field os string e.g. "linux"
---@field arch string e.g. "x64"
---@field cpus integer
---@field node string e.g. "v20.20.2"
---@field lua string "Lua 5.4"

---@class awl.Context
---@field cwd string The folder awl runs in; relative paths in io/os resolve against it.
---@field workspace string
---@field home string awl's data folder.
---@field spill_dir string A folder for this run's large outputs.
---@field result_limit integer The most characters of a result the model reads inline.
---@field host awl.Host
---@field name string This extension's name.
---@field dir string This extension's folder.
local Context = {}

--- Reports how far a slow tool has got.
---@param fraction number 0..1
---@param detail? string
function Context:progress(fraction, detail) end

--- Publishes a snapshot (any JSON-able value) for the tool's block; the last one is saved with the result.
---@param state any
function Context:show(state) end

--- Sets a short label shown after the tool's name.
---@param text string
function Context:title(text) end

--- Registers a tool: `awl.register_tool(name, schema, handler)` or `awl.register_tool{ name = ..., run = ... }`.
--- Only while the extension loads.
---@overload fun(spec: awl.ToolSpec)
---@param name string
---@param schema table JSON Schema of the input.
---@param handler fun(args: table, ctx: awl.Context): (string|awl.Result|awl.ToolError)
function awl.register_tool(name, schema, handler) end

---@class awl.CommandSpec
---@field name string Typed as /NAME at the prompt (lower-case letters, digits, _ : . -).
---@field description? string What /help shows.
---@field handler fun(args: string, ctx: awl.Context): (string|number|awl.Result|nil) Its result is printed.

--- Adds a slash command to the interactive mode (`/NAME ARGS`); the handler runs in the Lua pool and what it
--- returns is printed. Only while the extension loads.
---@param spec awl.CommandSpec
function awl.register_command(spec) end

---@class awl.Capability
---@field label? string The capability's name as people read it.
---@field description? string What its tools are for.
---@field version? string
---@field license? string
---@field homepage? string

--- Declares the capability's metadata (a directory extension's `init.lua`). awl reads it from the file's text
--- WITHOUT running your code (`awl extensions` shows it), so every value must be a plain string literal: no
--- calls, concatenations or variables.
---@param spec awl.Capability
function awl.capability(spec) end

--- A failure the model reads and can act on: `error(awl.tool_error("..."))` or return it.
---@param message string
---@return awl.ToolError
function awl.tool_error(message) end

--- A line in awl's log (never in the model's result or awl's output).
---@param ... any
function awl.log(...) end

---@class awl.ExecSpec
---@field [integer] string The program and its arguments (no shell).
---@field cwd? string
---@field stdin? string
---@field timeout? number Seconds.
---@field env? table<string, string> Extra environment variables.

--- Runs a program without a shell. When it could not start, was killed or timed out, `code` is nil and
--- `why` says so ("timeout", "signal 9", "cannot run ...").
---@param spec awl.ExecSpec
---@return integer? code
---@return string stdout
---@return string stderr
---@return string? why
function awl.exec(spec) end

--- Runs `fn` when awl discards this extension's Lua states (exit, reload). Only while the extension loads.
---@param fn fun()
function awl.on_unload(fn) end

---@alias awl.HookEvent
---| "session_start"  # a session starts, is resumed or forked
---| "user_prompt"    # the user sent a prompt
---| "tool_call"      # a tool call is about to run
---| "tool_result"    # a tool call finished
---| "before_request" # a request to the model is about to go out
---| "turn_end"       # the agent's turn ended
---| "compaction"     # the conversation is about to be compacted
---| "session_end"    # awl exits

---@class awl.HookOptions
---@field timeout_ms? integer The handler's deadline (default 5000); past it the handler is stopped, reported and skipped.

---@class awl.SessionStartEvent
---@field source "startup"|"resume"|"fork"

---@class awl.UserPromptEvent
---@field prompt string The prompt's text.
---@field attachments awl.Attachment[] What the prompt carries besides its text (files read in, images).

---@class awl.Attachment
---@field type "text"|"image"
---@field text? string A `text` attachment's text (a file's content as it was attached).
---@field media_type? string An `image`'s type (`image/png`...).

---@class awl.ToolCallEvent
---@field id string The call's id.
---@field name string The tool (awl's name: `bash`, `edit`...).
---@field input table The call's input, already checked against the tool's schema.
---@field decision awl.PermissionDecision What the permission rules decided so far.

---@class awl.PermissionDecision
---@field action "allow"|"ask"|"deny"
---@field reason string

---@class awl.ToolResultEvent
---@field id string
---@field name string
---@field input table
---@field content string The result as the model will read it (after the handlers before this one).
---@field is_error boolean

---@class awl.BeforeRequestEvent
---@field messages table[] The messages about to be sent (read-only: a handler cannot remove them).

---@class awl.TurnEndEvent
---@field stop_reason string Why the model stopped (`end_turn`, `max_tokens`, `step_limit`...).
---@field usage table Tokens of the turn so far.
---@field continues integer How many more calls hooks asked for in this turn already (at most 3).

---@class awl.CompactionEvent
---@field trigger "manual"|"auto"
---@field instructions string What the user asked of the summary (`/compact INSTRUCTIONS`), or "".

---@class awl.SessionEndEvent
---@field reason string

--- What a handler may return (nil: no change). Each event takes only its own fields; another field, or a
--- field of the wrong type, is reported once with your file:line and the result is ignored.
---@class awl.HookResult
---@field block? boolean `tool_call`, `user_prompt`: refuse the call or the prompt, saying `reason`.
---@field reason? string Why (`block`: the model reads it for a call, the user for a prompt; `ask`: shown in the question).
---@field input? table `tool_call`: the call's new input (checked against the schema and the permission rules again).
---@field ask? boolean `tool_call`: ask the user even where the rules allow the call (a deny rule still wins).
---@field context? string `session_start`, `user_prompt`, `before_request`, `compaction`: text for the model (shown in the transcript too).
---@field prompt? string `user_prompt`: the prompt's new text.
---@field content? string|{type: "text", text: string}[] `tool_result`: replaces the result.
---@field append? string `tool_result`: text added to the result.
---@field is_error? boolean `tool_result`: marks the result a failure (or not).
---@field continue? string `turn_end`: one more model call with this message (at most 3 per turn).

--- Runs `handler` at a point of the agent's life (docs/extension-api.md, "Hooks"). Handlers of one event run one
--- after another (project extensions before the user's, then by name), each within its deadline; one that fails
--- is reported once and skipped. Only while the extension loads; a reload drops the old handlers.
---@overload fun(event: "session_start", handler: fun(event: awl.SessionStartEvent, ctx: awl.Context): awl.HookResult?, opts?: awl.HookOptions)
---@overload fun(event: "user_prompt", handler: fun(event: awl.UserPromptEvent, ctx: awl.Context): awl.HookResult?, opts?: awl.HookOptions)
---@overload fun(event: "tool_call", handler: fun(event: awl.ToolCallEvent, ctx: awl.Context): awl.HookResult?, opts?: awl.HookOptions)
---@overload fun(event: "tool_result", handler: fun(event: awl.ToolResultEvent, ctx: awl.Context): awl.HookResult?, opts?: awl.HookOptions)
---@overload fun(event: "before_request", handler: fun(event: awl.BeforeRequestEvent, ctx: awl.Context): awl.HookResult?, opts?: awl.HookOptions)
---@overload fun(event: "turn_end", handler: fun(event: awl.TurnEndEvent, ctx: awl.Context): awl.HookResult?, opts?: awl.HookOptions)
---@overload fun(event: "compaction", handler: fun(event: awl.CompactionEvent, ctx: awl.Context): awl.HookResult?, opts?: awl.HookOptions)
---@overload fun(event: "session_end", handler: fun(event: awl.SessionEndEvent, ctx: awl.Context), opts?: awl.HookOptions)
---@param event awl.HookEvent
---@param handler fun(event: table, ctx: awl.Context): awl.HookResult?
---@param opts? awl.HookOptions
function awl.on(event, handler, opts) end

---@class awl.json
---@field null table The JSON null (truthy: compare with `== awl.json.null`).
awl.json = {}

--- Deterministic JSON text (sorted keys); raises on functions, cycles and other values JSON cannot hold.
---@param value any
---@return string
function awl.json.encode(value) end

--- Lua values from JSON text: null is `awl.json.null`, arrays and objects are marked, integers stay integers.
---@param text string
---@return any
function awl.json.decode(text) end

--- Marks `t` (or a new table) as a JSON array.
---@generic T: table
---@param t? T
---@return T
function awl.json.array(t) end

--- Marks `t` (or a new table) as a JSON object.
---@generic T: table
---@param t? T
---@return T
function awl.json.object(t) end

---@class awl.ToolRegistry
local ToolRegistry = {}

--- Adds a tool (wallah's form).
---@param spec awl.ToolSpec
function ToolRegistry:add(spec) end

---@class awl.agent
agent = {}

--- `agent.on('discover_tools', function(registry) registry:add{...} end)`: runs right after the file loads.
---@param event "discover_tools"
---@param fn fun(registry: awl.ToolRegistry)
function agent.on(event, fn) end

---@class awl.fs
awl.fs = {}

---@class awl.FileInfo
---@field type "file"|"directory"|"symlink"|"fifo"|"socket"|"char_device"|"block_device" "symlink" only for a link whose target is missing.
---@field size integer Bytes.
---@field mtime number Last modification, seconds since the epoch.
---@field mode integer Permission bits, e.g. 420 (0644).
---@field link boolean The path itself is a symlink (the other fields describe its target).

---@class awl.DirEntry: awl.FileInfo
---@field name string The entry's name, byte for byte.

--- Metadata of `path` (symlinks followed). Relative paths resolve against `ctx.cwd`.
---@param path string
---@return awl.FileInfo? info
---@return string? message
---@return integer? errno
function awl.fs.stat(path) end

--- The absolute path with `..`, `.` and every symlink resolved (the file itself need not exist yet): where a read or
--- a write of `path` really goes. Relative paths resolve against `ctx.cwd`.
---@param path string
---@return string? real
---@return string? message
---@return integer? errno
function awl.fs.real_path(path) end

--- The entries of a folder, sorted by name (byte order), and how many there are in all (`opts.limit` caps the list).
---@param dir string
---@param opts? { limit?: integer }
---@return awl.DirEntry[]? entries
---@return integer|string total_or_message
---@return integer? errno
function awl.fs.list(dir, opts) end

---@class awl.TextInfo
---@field size integer The file's size in bytes.
---@field total_lines? integer Lines in the file (absent past 256 MB read by lines; `more` is then true).
---@field first_line integer The first line returned.
---@field last_line integer The last line returned.
---@field binary boolean The file's first 8 KB hold a NUL byte.
---@field more? boolean The file goes on past the lines returned, and was not counted to its end.

--- The text of a regular file, byte for byte (`opts.offset`, 1-based, and `opts.limit` return only those lines,
--- each with its line ending). Files over 64 MB are read by lines only. The host may route this to an editor.
---@param path string
---@param opts? { offset?: integer, limit?: integer, max_line?: integer } max_line: each line's text cut to that many bytes
---@return string? text
---@return awl.TextInfo|string info_or_message
---@return integer? errno
function awl.fs.read_text(path, opts) end

--- Writes `text` atomically (a temp file beside it, then rename: old content or new, never a mix), creating
--- parent folders, keeping an existing file's permissions, writing through a symlink to its target.
---@param path string
---@param text string
---@return boolean? ok
---@return boolean|string created_or_message true when the file is new.
---@return integer? errno
function awl.fs.write_text(path, text) end

---@class awl.SpillFile
---@field path string The path it was opened with.
local SpillFile = {}

--- Appends `data` (bytes). Known API keys become `[REDACTED]` on their way to the file.
---@param data string
---@return boolean? ok
---@return string? message
---@return integer? errno
function SpillFile:write(data) end

--- Writes what is held back (the start of what could be a key) and closes the file.
---@return boolean? ok
---@return string? message
---@return integer? errno
function SpillFile:close() end

--- A new file, readable by its owner only, for an output saved whole (in `ctx.spill_dir`): every API key awl knows
--- of is replaced by `[REDACTED]` as it is written, a key split between two writes too. Closed when the call ends.
--- An existing file is an error.
---@param path string
---@return awl.SpillFile? file
---@return string? message
---@return integer? errno
function awl.fs.open_spill(path) end

---@class awl.WalkEntry
---@field path string Relative to the walked folder, `/`-separated.
---@field type "file"|"directory"|"symlink"|"other"
---@field size integer
---@field mtime number

---@class awl.WalkOptions
---@field glob? string|string[] Paths must match one; a glob without `/` matches names at any depth, one with a `/` the path relative to the folder.
---@field gitignore? boolean Respect .gitignore files and .git/info/exclude (default true).
---@field hidden? boolean Include names starting with "." (default false; .git never).
---@field type? "file"|"directory"|"any" Default "file".
---@field sort? "path"|"mtime" Default "path"; "mtime" is newest first.
---@field limit? integer Most entries returned.
---@field max_depth? integer Most folder levels below the walked folder.

--- Files (or folders) below `dir`, filtered; then how many in all, and whether the walk stopped early (the
--- call was cancelled or ran out of time).
---@param dir string
---@param opts? awl.WalkOptions
---@return awl.WalkEntry[]? entries
---@return integer|string total_or_message
---@return boolean? stopped
function awl.fs.walk(dir, opts) end

---@class awl.GrepRecord
---@field path string Relative to the searched folder ("" when a file was searched).
---@field line integer
---@field text string The line, without its line ending.
---@field match boolean false for a context line.

---@class awl.GrepOptions
---@field glob? string|string[]
---@field gitignore? boolean
---@field hidden? boolean
---@field ignore_case? boolean
---@field context? integer Lines before and after each match.
---@field limit? integer Most matching lines returned.
---@field max_line? integer Longest line text returned.
---@field max_depth? integer

--- Lines matching a JavaScript regular expression in the files below `dir` (binary files skipped), in path
--- order; then the number of matching lines, of files with one, and whether it stopped early.
---@param dir string
---@param pattern string
---@param opts? awl.GrepOptions
---@return awl.GrepRecord[]? records
---@return integer|string matches_or_message
---@return integer? files
---@return boolean? stopped
function awl.fs.grep(dir, pattern, opts) end

---@class awl.base64
awl.base64 = {}

--- Base64 text of a string's bytes.
---@param bytes string
---@return string
function awl.base64.encode(bytes) end

--- The bytes of base64 text.
---@param text string
---@return string
function awl.base64.decode(text) end

---@class awl.SpawnSpec
---@field [integer] string The program and its arguments (no shell).
---@field cwd? string
---@field env? table<string, string> Extra environment variables.
---@field timeout? number Seconds; then the whole process group is killed.

---@class awl.Process
---@field pid integer 0 when the program could not start.
local Process = {}

--- The next output as it came, and which stream ("stdout" or "stderr"); nil once the program ended and all of
--- its output was read. Blocks until there is some.
---@return string? data
---@return "stdout"|"stderr"|nil stream
function Process:read() end

--- Waits for the end, dropping output not read; the exit code, or nil and why ("timeout", "signal 9", ...).
---@return integer? code
---@return string? why
function Process:wait() end

--- Kills the program and everything it started. true when it was still running.
---@return boolean
function Process:kill() end

--- Starts a program whose output you read as it comes. No stdin (it reads end of file). It runs in its own
--- process group: a cancelled or timed-out call, or the end of the call, kills the group. It returns at once;
--- a program that cannot start ends at once (`proc:wait()` returns nil and "cannot run ...").
---@param spec awl.SpawnSpec
---@return awl.Process process
function awl.spawn(spec) end

---@class awl.http
awl.http = {}

---@class awl.HttpRequest
---@field url string http:// or https:// only.
---@field method? string Default "GET" ("POST" when there is a body).
---@field headers? table<string, string|number> Names compare without case.
---@field body? string|table A table is sent as JSON (content-type application/json unless given).
---@field timeout_ms? number The whole request, body included; default 30000.
---@field max_bytes? number Most bytes of the (decompressed) body kept; default 5 MB; the rest is dropped or spilled.
---@field redirect? "follow"|"same-host"|"manual" Default "follow" (each hop checked per host); "same-host" stops at a redirect to another host.
---@field spill? boolean Stream the whole body (up to 256 MB) to a file in ctx.spill_dir: `spill_file`.

---@class awl.HttpResponse
---@field status integer
---@field ok boolean status 2xx
---@field url string The URL that answered, after the redirects followed.
---@field headers table<string, string> Lower-case names; repeated headers joined with ", ".
---@field body string Text as UTF-8 (decoded by its charset), or the bytes when binary; at most max_bytes.
---@field binary boolean
---@field truncated boolean The body was longer than max_bytes (and, spilled, than 256 MB).
---@field size integer Bytes read, after decompression.
---@field charset? string The charset the text was read in.
---@field note? string What was odd: an unknown charset, invalid bytes replaced, an encoding awl cannot decompress.
---@field spill_file? string With spill = true: the file holding the whole body.
---@field redirect_to? string A redirect not followed ("same-host" to another host, or "manual"): where it pointed.
local HttpResponse = {}

--- The body decoded as JSON; nil and why when it is not JSON.
---@return any value
---@return string? problem
function HttpResponse:json() end

---@alias awl.HttpFailure "denied"|"invalid"|"network"|"tls"|"timeout"|"cancelled"

--- Performs a request from awl's main thread. Every request is a `network` action the permission engine decides
--- per host (`network(api.github.com)`, `network(*.example.com)`), whatever kinds the tool declares; loopback
--- and private addresses need a rule naming them. The call's cancel or timeout aborts it.
---@param spec awl.HttpRequest
---@return awl.HttpResponse? response
---@return string? message Why it failed.
---@return awl.HttpFailure? kind
function awl.http.request(spec) end

--- A GET request.
---@param url string
---@param opts? awl.HttpRequest
---@return awl.HttpResponse? response
---@return string? message
---@return awl.HttpFailure? kind
function awl.http.get(url, opts) end

--- A POST request; a table body is sent as JSON.
---@param url string
---@param body string|table
---@param opts? awl.HttpRequest
---@return awl.HttpResponse? response
---@return string? message
---@return awl.HttpFailure? kind
function awl.http.post(url, body, opts) end

--- GET, then the body decoded as JSON; nil, a message and a kind ("status", "json" besides the request's own)
--- when the request failed, the status was not 2xx, or the body is not JSON.
---@param url string
---@param opts? awl.HttpRequest
---@return any value
---@return awl.HttpResponse|string|nil response_or_message
---@return string? kind
function awl.http.get_json(url, opts) end

---@class awl.web
awl.web = {}

--- A web page's main content as Markdown (Mozilla's Readability, then Turndown; a page without an article
--- is converted whole), its links made absolute against `url`. The libraries load on the first call.
---@param html string
---@param url string The page's URL.
---@return string title
---@return string markdown
---@return boolean is_article Whether Readability found an article.
function awl.web.markdown(html, url) end

---A PDF's text, page by page (PDF.js through unpdf, loaded on the first call).
---@param data string The PDF's bytes.
---@return string[]? pages Each page's text, in order.
---@return string? message Why the bytes could not be read (not a PDF, encrypted, damaged).
function awl.web.pdf_text(data) end

---@class awl.SearchResult
---@field title string
---@field url string
---@field snippet string

--- Searches the web with the backend the user set up (config `search`: SearXNG, Brave or Tavily), asked by awl
--- itself: its key never reaches Lua. The call's cancel aborts it.
---@param query string
---@param opts? { count?: integer } Most results (default 8).
---@return awl.SearchResult[]? results
---@return string backend_or_message The backend's name, or why it failed (no backend set up, its error).
function awl.web.search(query, opts) end

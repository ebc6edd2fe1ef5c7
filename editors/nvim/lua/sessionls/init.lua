-- sessionls for Neovim: diagnostics and context-budget code lenses for agent
-- session files (*.jsonl), served by `sessionls serve`.
--
-- Works on Neovim 0.7 and later. On 0.11+ (vim.lsp.config / vim.lsp.enable)
-- the built-in client machinery is used; on older versions the client is
-- started with vim.lsp.start_client and attached to each jsonl buffer.

local M = {}

local defaults = {
  -- Command that starts the language server.
  cmd = { "sessionls", "serve" },
  -- Context budget in characters (a positive integer), or nil for none.
  budget = nil,
  -- Finding codes to turn off, sent as initializationOptions.checks,
  -- e.g. { "swept-message", "missing-tool-result" }.
  checks = nil,
  -- Globs naming the session files the server analyses, sent as
  -- initializationOptions.files (the server's default is { "**/*.jsonl" }).
  files = nil,
  -- Show token counts beside the character costs in the unit lenses and
  -- the hover ("1,234 chars · ≈ 310 tokens · …"), counted lazily by the
  -- server (codeLens/resolve).
  tokens = false,
  -- Tokenizer of those counts, "o200k_base" or "cl100k_base"; nil: the
  -- document's sessionls.toml, else o200k_base.
  tokenizer = nil,
  -- Filetypes the server is attached to.
  filetypes = { "jsonl" },
  -- Show code lenses, refreshed on attach, on BufEnter and after every
  -- change to the buffer (debounced).
  codelens = true,
  -- Map K to the hover in session buffers where K is not mapped already.
  hover_key = true,
  -- Where code lenses are drawn: "above" puts a line's lenses on a virtual
  -- line above it, where long wrapped lines and diagnostics' virtual text
  -- cannot hide them (line 1's, which Neovim cannot show above the first
  -- line, stay at its end); "eol" keeps Neovim's own drawing at the end of
  -- the line.
  lens_position = "above",
  -- Called as on_attach(client, bufnr) after the plugin's own set-up.
  on_attach = nil,
  -- :SessionlsMap opens the page it writes with this function(path); nil:
  -- vim.ui.open (Neovim 0.10+), else xdg-open (or open on macOS). Without
  -- any, the page's path is printed for you to open.
  map_open = nil,
  -- Extra fields merged into the client configuration.
  client = nil,
}

-- The effective configuration; replaced by setup().
M.config = vim.deepcopy(defaults)

local NAME = "sessionls"
local COMMAND_SET_BUDGET = "sessionls.setBudget"
local augroup_name = "sessionls"

local function has(feature)
  return vim.fn.has(feature) == 1
end

local function notify(msg, level)
  vim.notify("sessionls: " .. msg, level or vim.log.levels.INFO)
end

-- client:name(...) on 0.11+ (a method call), client.name(...) before:
-- request, request_sync and notify.
local function client_call(client, name, ...)
  if has("nvim-0.11") then
    return client[name](client, ...)
  end
  return client[name](...)
end

-- All running sessionls clients, optionally only those attached to bufnr.
function M.clients(bufnr)
  local out = {}
  if vim.lsp.get_clients then
    out = vim.lsp.get_clients({ name = NAME, bufnr = bufnr })
  else
    local list = bufnr and vim.lsp.buf_get_clients(bufnr) or vim.lsp.get_active_clients()
    for _, c in pairs(list) do
      if c.name == NAME then
        table.insert(out, c)
      end
    end
  end
  return out
end

-- An empty Lua table is encoded as a JSON array; objects must be objects.
local function object(t)
  if next(t) == nil then
    return vim.empty_dict()
  end
  return t
end

local function init_options(cfg)
  return object({
    budget = cfg.budget,
    checks = cfg.checks,
    files = cfg.files,
    tokens = cfg.tokens or nil,
    tokenizer = cfg.tokenizer,
  })
end

-- What the server reads from didChangeConfiguration and workspace/configuration.
-- budget 0 means none (nil would drop the key and leave the server's value).
local function settings(cfg)
  return {
    sessionls = object({
      budget = cfg.budget or 0,
      checks = cfg.checks,
      files = cfg.files,
      tokens = cfg.tokens == true,
      tokenizer = cfg.tokenizer,
    }),
  }
end

-- Ask for fresh code lenses in bufnr (the request needs the buffer current
-- on 0.7-0.9, so run it inside that buffer).
--
-- Before 0.10, vim.lsp.codelens.refresh() drops a request while an earlier
-- one is in flight, so an edit made during a slow answer left stale lenses
-- on screen. There the plugin sends the request itself and drops an answer
-- whose buffer changed since it was asked (the debounced refresh that the
-- change scheduled asks again).
function M.refresh_codelens(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not vim.api.nvim_buf_is_valid(bufnr) or #M.clients(bufnr) == 0 then
    return
  end
  if has("nvim-0.10") then
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
    return
  end
  local tick = vim.api.nvim_buf_get_changedtick(bufnr)
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
  pcall(vim.lsp.buf_request, bufnr, "textDocument/codeLens", params, function(err, result, ctx, cfg)
    if not vim.api.nvim_buf_is_valid(bufnr) or vim.api.nvim_buf_get_changedtick(bufnr) ~= tick then
      return
    end
    -- Looked up at call time: the handler may be wrapped (tests do).
    return vim.lsp.codelens.on_codelens(err, result, ctx, cfg)
  end)
end

-- Milliseconds between the last change and the lens refresh it causes.
local REFRESH_DELAY = 200

-- One debounce timer per buffer.
local refresh_timers = {}

-- Refresh bufnr's lenses REFRESH_DELAY ms after its last change.
local function schedule_refresh(bufnr)
  local t = refresh_timers[bufnr]
  if not t then
    t = vim.loop.new_timer()
    refresh_timers[bufnr] = t
  end
  t:stop()
  t:start(REFRESH_DELAY, 0, vim.schedule_wrap(function()
    M.refresh_codelens(bufnr)
  end))
end

local function stop_refresh(bufnr)
  local t = refresh_timers[bufnr]
  if t then
    refresh_timers[bufnr] = nil
    t:stop()
    t:close()
  end
end

-- Buffers whose changes are watched, so that a second attach (a restarted
-- client) does not watch twice.
local watched = {}

-- Every change refreshes the lenses, however it was made: typing, :s,
-- undo, a code action's edit, a reload from disk.
local function watch_changes(bufnr)
  if watched[bufnr] then
    return
  end
  watched[bufnr] = true
  vim.api.nvim_buf_attach(bufnr, false, {
    on_lines = function()
      if not watched[bufnr] then
        return true -- detach
      end
      schedule_refresh(bufnr)
    end,
    on_reload = function()
      schedule_refresh(bufnr)
    end,
    on_detach = function()
      watched[bufnr] = nil
      vim.schedule(function()
        stop_refresh(bufnr)
      end)
    end,
  })
end

-- K shows the hover in session buffers unless the user mapped K already
-- (Neovim 0.10+ maps it itself).
local function map_hover(bufnr)
  if vim.fn.maparg("K", "n") ~= "" then
    return
  end
  vim.api.nvim_buf_set_keymap(bufnr, "n", "K", "", {
    noremap = true,
    silent = true,
    desc = "sessionls: hover",
    callback = function()
      vim.lsp.buf.hover()
    end,
  })
end

-- With a budget, the server marks the lines the model will not see with a
-- hint diagnostic tagged Unnecessary (LSP DiagnosticTag 1). Neovim 0.10+
-- draws such a range with its DiagnosticUnnecessary highlight; before
-- 0.10 the plugin fades it itself, with SessionlsTrimmed (linked to
-- Comment unless the user set it).
--
-- Line by line, and only the lines on screen: a decoration provider paints
-- each visible trimmed line as it is drawn. One extmark spanning the range
-- was not drawn once the window was ~25 lines past its start (0.7 does not
-- look that far back for a multi-line highlight), and the hint's own
-- underline (cyan, DiagnosticUnderlineHint) made the trimmed lines louder
-- than the kept ones: hints are not underlined in this client's namespace.
local fade_ns = vim.api.nvim_create_namespace("sessionls_trimmed")

-- trimmed[bufnr]: the trimmed rows, { { first, last }, ... } (0-based,
-- inclusive), or nil.
local trimmed = {}

local function define_highlights()
  vim.cmd("highlight default link SessionlsTrimmed Comment")
end

local function is_unnecessary(d)
  local lsp = d.user_data and d.user_data.lsp
  return type(lsp) == "table" and type(lsp.tags) == "table" and vim.tbl_contains(lsp.tags, 1)
end

local function collect_trimmed(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    trimmed[bufnr] = nil
    return
  end
  local ranges = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == NAME and is_unnecessary(d) then
      local last = d.end_lnum or d.lnum
      if last > d.lnum and (d.end_col or 0) == 0 then
        last = last - 1 -- a range ending at column 0 stops before that row
      end
      table.insert(ranges, { d.lnum, last })
    end
  end
  trimmed[bufnr] = #ranges > 0 and ranges or nil
end

-- M.trimmed_rows(bufnr): the rows the plugin fades, for tests and for
-- statuslines: a list of { first, last } (0-based, inclusive).
function M.trimmed_rows(bufnr)
  return vim.deepcopy(trimmed[bufnr ~= 0 and bufnr or vim.api.nvim_get_current_buf()] or {})
end

local fade_provider = false

local function fade_line(bufnr, row)
  for _, r in ipairs(trimmed[bufnr] or {}) do
    if row >= r[1] and row <= r[2] then
      local opts = { hl_group = "SessionlsTrimmed", hl_eol = true, ephemeral = true, priority = 200 }
      if row + 1 < vim.api.nvim_buf_line_count(bufnr) then
        opts.end_row, opts.end_col = row + 1, 0
      else
        opts.end_row, opts.end_col = row, #(vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or "")
      end
      pcall(vim.api.nvim_buf_set_extmark, bufnr, fade_ns, row, 0, opts)
      return
    end
  end
end

local function start_fade_provider()
  if fade_provider then
    return
  end
  fade_provider = true
  vim.api.nvim_set_decoration_provider(fade_ns, {
    on_win = function(_, _, bufnr)
      return trimmed[bufnr] ~= nil
    end,
    on_line = function(_, _, bufnr, row)
      fade_line(bufnr, row)
    end,
  })
end

-- No underline for hints in the client's diagnostic namespace, unless the
-- user turned underlines off (then they stay off) or chose severities.
local function quiet_hints(client)
  local ok, ns = pcall(vim.lsp.diagnostic.get_namespace, client.id)
  if not ok or not ns then
    return
  end
  local underline = vim.diagnostic.config().underline
  if underline == nil or underline == true then
    vim.diagnostic.config({ underline = { severity = { min = vim.diagnostic.severity.INFO } } }, ns)
  end
end

local function watch_trimmed(client, bufnr)
  if has("nvim-0.10") then
    return
  end
  start_fade_provider()
  quiet_hints(client)
  local group = vim.api.nvim_create_augroup(augroup_name .. "_trimmed_" .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd("DiagnosticChanged", {
    group = group,
    buffer = bufnr,
    callback = function()
      collect_trimmed(bufnr)
    end,
  })
  vim.api.nvim_create_autocmd("BufWipeout", {
    group = group,
    buffer = bufnr,
    callback = function()
      trimmed[bufnr] = nil
    end,
  })
  collect_trimmed(bufnr)
end

-- Buffers each client attached to, to clear its lenses when it exits.
local attached = {}

-- Drop the lenses a stopped client left: Neovim 0.7-0.9 keep them in the
-- code lens cache (and on screen) after the client is gone.
local function clear_lenses(client_id)
  for bufnr in pairs(attached[client_id] or {}) do
    if vim.api.nvim_buf_is_valid(bufnr) then
      if vim.lsp.codelens.clear then
        pcall(vim.lsp.codelens.clear, client_id, bufnr)
      else
        pcall(vim.lsp.codelens.save, {}, bufnr, client_id)
        local ns = vim.lsp.codelens.__namespaces and vim.lsp.codelens.__namespaces[client_id]
        if ns then
          pcall(vim.api.nvim_buf_clear_namespace, bufnr, ns, 0, -1)
        end
      end
    end
  end
  attached[client_id] = nil
end

local function on_attach(client, bufnr)
  attached[client.id] = attached[client.id] or {}
  attached[client.id][bufnr] = true
  if M.config.codelens then
    local group = vim.api.nvim_create_augroup(augroup_name .. "_lens_" .. bufnr, { clear = true })
    vim.api.nvim_create_autocmd({ "BufEnter", "BufWritePost", "InsertLeave" }, {
      group = group,
      buffer = bufnr,
      callback = function()
        M.refresh_codelens(bufnr)
      end,
    })
    watch_changes(bufnr)
    M.refresh_codelens(bufnr)
  end
  if M.config.hover_key then
    map_hover(bufnr)
  end
  watch_trimmed(client, bufnr)
  if M.config.on_attach then
    M.config.on_attach(client, bufnr)
  end
end

local function client_config(cfg)
  local c = {
    name = NAME,
    cmd = cfg.cmd,
    init_options = init_options(cfg),
    settings = settings(cfg),
    on_attach = on_attach,
    on_exit = function(_, _, client_id)
      vim.schedule(function()
        clear_lenses(client_id)
      end)
    end,
    get_language_id = function()
      return "jsonl"
    end,
  }
  return vim.tbl_deep_extend("force", c, cfg.client or {})
end

-- The directory that holds .git above the buffer's file, else its directory.
local function root_dir(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = name ~= "" and vim.fn.fnamemodify(name, ":p:h") or vim.fn.getcwd()
  local git = vim.fn.finddir(".git", dir .. ";")
  if git == "" then
    git = vim.fn.findfile(".git", dir .. ";")
  end
  if git ~= "" then
    return vim.fn.fnamemodify(git, ":p:h:h")
  end
  return dir
end

-- Client ids this plugin started, by root directory. Neovim 0.7 lists a
-- client as active only once it has initialized: without this, two
-- buffers opened before that would start two servers.
local by_root = {}
local warned_start = false

local function live(id)
  local c = id and vim.lsp.get_client_by_id(id)
  return c ~= nil and not c.is_stopped()
end

-- Start (or reuse) a client for bufnr's root and attach it. Neovim < 0.11.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local root = root_dir(bufnr)
  local id = by_root[root]
  if not live(id) then
    local cfg = client_config(M.config)
    cfg.root_dir = root
    local started, result = pcall(vim.lsp.start or vim.lsp.start_client, cfg, { bufnr = bufnr })
    id = started and result or nil
    if not id then
      if not warned_start then
        warned_start = true
        notify(string.format("cannot start `%s`%s. Install it with `go install "
          .. "github.com/sessionls/sessionls/cmd/sessionls@latest` or set `cmd` in setup()",
          table.concat(M.config.cmd, " "), started and "" or (": " .. tostring(result))), vim.log.levels.ERROR)
      end
      return nil
    end
    by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

-- n with thousands separators: 12345 -> "12,345".
function M.thousands(n)
  local s = tostring(math.floor(n))
  local out = s:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (out:gsub("^,", ""))
end

-- Parse a budget the way a person types it: "8000", "8_000" or "8,000".
-- Returns the integer, or nil and the reason.
function M.parse_budget(s)
  if type(s) == "number" then
    s = tostring(s)
  end
  if type(s) ~= "string" then
    return nil, "a budget is a positive whole number of characters"
  end
  local digits = vim.trim(s):gsub("[_,]", "")
  if not digits:match("^%d+$") then
    return nil, string.format("%q is not a positive whole number of characters", s)
  end
  local n = tonumber(digits)
  if not n or n < 1 or n > 9007199254740991 then
    return nil, string.format("%q is not a positive whole number of characters", s)
  end
  return n
end

-- Whether s asks to clear the budget: "off", "none" or zero.
function M.is_clear(s)
  if type(s) == "number" then
    return s == 0
  end
  if type(s) ~= "string" then
    return false
  end
  s = vim.trim(s):lower()
  return s == "off" or s == "none" or s:match("^[0_,]+$") ~= nil
end

-- Set the context budget on every running sessionls client and refresh the
-- lenses of their buffers. on_done(err) is called once all have answered.
-- "off", "none" or 0 clear the budget.
function M.set_budget(n, on_done)
  local budget, why
  if M.is_clear(n) then
    budget = 0 -- the server's "no budget"
  else
    budget, why = M.parse_budget(n)
  end
  if not budget then
    notify(why, vim.log.levels.ERROR)
    if on_done then
      on_done(why)
    end
    return false
  end
  M.config.budget = budget > 0 and budget or nil
  local clients = M.clients()
  if #clients == 0 then
    notify("no sessionls server is running; the budget applies to the next one")
    if on_done then
      on_done(nil)
    end
    return true
  end
  local pending, first_err = #clients, nil
  for _, client in ipairs(clients) do
    -- Later starts and didChangeConfiguration see the new value too.
    client.config.settings = settings(M.config)
    if client.settings ~= nil then -- 0.11+ answers workspace/configuration from here
      client.settings = settings(M.config)
    end
    client_call(client, "request", "workspace/executeCommand", {
      command = COMMAND_SET_BUDGET,
      arguments = { budget },
    }, function(err)
      if err then
        first_err = first_err or err.message or tostring(err)
        notify("setBudget failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      end
      for b in pairs(client.attached_buffers or {}) do
        M.refresh_codelens(b)
      end
      pending = pending - 1
      if pending == 0 and on_done then
        on_done(first_err)
      end
    end)
  end
  return true
end

-- The budget lenses (Σ, ✂) carry sessionls.setBudget without an argument:
-- the client asks for the number. Each unit lens carries the unit's chars
-- from newest ("budget to here"), set as it is. Running a lens
-- (vim.lsp.codelens.run) lands here.
local function lens_set_budget(command)
  local args = command.arguments
  if type(args) == "table" and args[1] ~= nil then
    M.set_budget(args[1])
    return
  end
  vim.ui.input({
    prompt = "Context budget (characters, or off to clear): ",
    default = M.config.budget and tostring(M.config.budget) or "",
  }, function(input)
    if input and input ~= "" then
      M.set_budget(input)
    end
  end)
end

-- The names of sessionls's configuration files.
local CONFIG_FILES = { "sessionls.toml", ".sessionls.toml" }

-- Tell every running server that a configuration file changed, then
-- refresh the lenses of its buffers. Neovim 0.9+ watches files for the
-- server itself (workspace/didChangeWatchedFiles with dynamic
-- registration); before that, a write from Neovim is the change the
-- server hears of. A second notice is harmless: the server re-reads the
-- files and re-publishes only what changed.
local function config_written(path)
  local uri = vim.uri_from_fname(vim.fn.fnamemodify(path, ":p"))
  for _, client in ipairs(M.clients()) do
    client_call(client, "notify", "workspace/didChangeWatchedFiles", { changes = { { uri = uri, type = 2 } } })
    for b in pairs(client.attached_buffers or {}) do
      schedule_refresh(b)
    end
  end
end

local function watch_config_files()
  local group = vim.api.nvim_create_augroup(augroup_name .. "_config", { clear = true })
  vim.api.nvim_create_autocmd("BufWritePost", {
    group = group,
    pattern = CONFIG_FILES,
    callback = function(args)
      config_written(args.file)
    end,
  })
end

-- The namespace Neovim's code lens module draws a client's lenses in
-- (the same name gives the same namespace, so its clearing on edits and
-- the plugin's on client exit apply to these lenses too).
local function lens_namespace(client_id)
  return vim.api.nvim_create_namespace("vim_lsp_codelens:" .. client_id)
end

-- Draw a sessionls client's lenses as virtual lines above their lines.
local function draw_lenses_above(lenses, bufnr, client_id)
  local ns = lens_namespace(client_id)
  vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  local by_line, order = {}, {}
  for _, lens in pairs(lenses or {}) do
    local l = lens.range.start.line
    if not by_line[l] then
      by_line[l] = {}
      table.insert(order, l)
    end
    table.insert(by_line[l], lens)
  end
  local count = vim.api.nvim_buf_line_count(bufnr)
  for _, l in ipairs(order) do
    if l < count then
      local chunks = {}
      for j, lens in ipairs(by_line[l]) do
        table.insert(chunks, { lens.command and lens.command.title or "Unresolved lens ...", "LspCodeLens" })
        if j < #by_line[l] then
          table.insert(chunks, { " | ", "LspCodeLensSeparator" })
        end
      end
      vim.api.nvim_buf_set_extmark(bufnr, ns, l, 0, { virt_lines = { chunks }, virt_lines_above = true })
    end
  end
end

-- Neovim shows virtual lines above the first line only as "filler" at
-- the top of a window scrolled to it: make windows at line 1 show them.
local function show_top_lenses(bufnr)
  for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
    vim.api.nvim_win_call(win, function()
      local view = vim.fn.winsaveview()
      if view.topline == 1 and (view.topfill or 0) == 0 then
        view.topfill = 1
        vim.fn.winrestview(view)
      end
    end)
  end
end

-- A window scrolled back to line 1 (gg after scrolling away) shows no
-- filler, so line 1's lenses vanished: show them again whenever a window
-- showing a session buffer with lenses comes back to the top.
local function watch_top_lenses()
  vim.api.nvim_create_autocmd("WinScrolled", {
    group = vim.api.nvim_create_augroup(augroup_name .. "_top_lenses", { clear = true }),
    callback = function()
      local bufnr = vim.api.nvim_get_current_buf()
      for _, c in ipairs(M.clients(bufnr)) do
        local ns = lens_namespace(c.id)
        if #vim.api.nvim_buf_get_extmarks(bufnr, ns, { 0, 0 }, { 0, -1 }, {}) > 0 then
          show_top_lenses(bufnr)
          return
        end
      end
    end,
  })
end

-- Route the drawing of sessionls's lenses (only theirs) to
-- draw_lenses_above when lens_position is "above".
local function hook_lens_display()
  local codelens = vim.lsp.codelens
  if codelens.__sessionls_display then
    return
  end
  local original = codelens.display
  codelens.__sessionls_display = true
  codelens.display = function(lenses, bufnr, client_id)
    local client = vim.lsp.get_client_by_id(client_id)
    if M.config.lens_position == "above" and client and client.name == NAME and vim.api.nvim_buf_is_valid(bufnr) then
      draw_lenses_above(lenses, bufnr, client_id)
      show_top_lenses(bufnr)
      return
    end
    return original(lenses, bufnr, client_id)
  end
end

-- M.fix_all(bufnr): apply every safe fix of the buffer at once, the
-- server's source.fixAll.sessionls action (what `sessionls check --fix`
-- does to the file). Returns the number of actions applied (0 or 1).
function M.fix_all(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = M.clients(bufnr)[1]
  if not client then
    notify("no sessionls server is attached to this buffer", vim.log.levels.WARN)
    return 0
  end
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = 0, character = 0 }, ["end"] = { line = vim.api.nvim_buf_line_count(bufnr), character = 0 } },
    context = { diagnostics = {}, only = { "source.fixAll.sessionls" } },
  }
  local resp = client_call(client, "request_sync", "textDocument/codeAction", params, 10000, bufnr)
  if not resp or resp.err then
    notify("fix all: " .. (resp and resp.err and resp.err.message or "no answer from the server"), vim.log.levels.ERROR)
    return 0
  end
  for _, action in ipairs(resp.result or {}) do
    if action.kind == "source.fixAll.sessionls" and action.edit then
      vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or "utf-16")
      notify(action.title)
      return 1
    end
  end
  notify("nothing to fix with the safe fixes")
  return 0
end

-- M.budget_text(bufnr): the budget that applies to the buffer and where
-- it comes from, as the server reports it (sessionls/status): "budget
-- 8,000 (from /repo/sessionls.toml:1:1)", "budget 8,000 (from editor
-- setting sessionls.budget)", or "no budget …"; with tokens on, the
-- tokens follow: "… · keeps ≈ 1,980 of ≈ 3,100 tokens (o200k_base)"; then,
-- for a file read in another dialect than seed, "; read as claude-code
-- (why)".
function M.budget_text(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = M.clients(bufnr)[1]
  if not client then
    return "budget is " .. (M.config.budget and M.thousands(M.config.budget) or "not set")
      .. " (no sessionls server is attached to this buffer)"
  end
  local params = { uri = vim.uri_from_bufnr(bufnr) }
  local resp = client_call(client, "request_sync", "sessionls/status", params, 5000, bufnr)
  local st = resp and resp.result
  if type(st) ~= "table" then
    return "budget: the server did not answer (" .. tostring(resp and resp.err and resp.err.message) .. ")"
  end
  -- With setup{ tokens = true }, the server counts the file's tokens and
  -- the kept units' (sessionls budget --tokens's totalTokens, keptTokens).
  local total = type(st.totalTokens) == "number" and st.totalTokens or nil
  local enc = type(st.tokenizer) == "string" and st.tokenizer or "?"
  -- A file read in another format than the runtime's own says which.
  local dialect = ""
  if type(st.dialect) == "string" and st.dialect ~= "seed" then
    dialect = string.format("; read as %s (%s)", st.dialect, tostring(st.dialectWhy))
  end
  if type(st.budget) ~= "number" then
    local toks = total and string.format(" (≈ %s tokens, %s)", M.thousands(total), enc) or ""
    return "no budget" .. toks .. ": set one with :SessionlsBudget N, or budget = N in sessionls.toml" .. dialect
  end
  local src = type(st.budgetSource) == "string" and st.budgetSource or "?"
  local toks = ""
  if total and type(st.keptTokens) == "number" then
    toks = string.format(" · keeps ≈ %s of ≈ %s tokens (%s)", M.thousands(st.keptTokens), M.thousands(total), enc)
  elseif total then
    toks = string.format(" · ≈ %s tokens in all (%s)", M.thousands(total), enc)
  end
  return string.format("budget %s (from %s)%s", M.thousands(st.budget), src, toks) .. dialect
end

-- The server's quick fix for a byte order mark Neovim hides ('bomb'): the
-- server could remove it from the file on disk, but Neovim would write it
-- back on the next :write. Here the buffer drops it and is written; the
-- server checks the file again on didSave.
local COMMAND_REMOVE_DISK_BOM = "sessionls.removeDiskBOM"

local function remove_disk_bom(_, ctx)
  local bufnr = ctx and ctx.bufnr or vim.api.nvim_get_current_buf()
  vim.bo[bufnr].bomb = false
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd("silent write")
  end)
  notify("removed the byte order mark: the file is written without it")
end

-- The context map (:SessionlsMap): the page `sessionls map` writes, made by
-- the server for the buffer's text (sessionls/contextMap with html = true),
-- so it shows unsaved edits and the buffer's budget; without a server, by
-- running `sessionls map` on the buffer's file, when it is saved. The page
-- is written to Neovim's cache directory and opened in the browser.

-- Where the page of the buffer's file goes: one page per file, rewritten
-- each time (a browser tab's reload shows the new map).
function M.map_path(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local base = vim.fn.fnamemodify(name, ":t"):gsub("[^%w%._%-]", "_")
  if base == "" then
    base = "buffer" .. bufnr
  end
  local dir = vim.fn.stdpath("cache") .. "/sessionls/maps"
  vim.fn.mkdir(dir, "p")
  return string.format("%s/%s-%s.html", dir, base, vim.fn.sha256(name):sub(1, 8))
end

-- Opens path in the browser: M.config.map_open, vim.ui.open, xdg-open or
-- open. Returns how, or nil when there is no opener.
local function open_page(path)
  if M.config.map_open then
    M.config.map_open(path)
    return "map_open"
  end
  if vim.ui and vim.ui.open then
    vim.ui.open(path)
    return "vim.ui.open"
  end
  for _, opener in ipairs({ "xdg-open", "open" }) do
    if vim.fn.executable(opener) == 1 then
      vim.fn.jobstart({ opener, path }, { detach = true })
      return opener
    end
  end
  return nil
end

local function write_file(path, text)
  local f, err = io.open(path, "wb")
  if not f then
    return nil, err
  end
  f:write(text)
  f:close()
  return true
end

-- Runs `sessionls map` on the buffer's file (no server, or one without
-- sessionls/contextMap), which must hold the buffer's text.
local function map_with_cli(bufnr, out, done)
  local file = vim.api.nvim_buf_get_name(bufnr)
  if file == "" or vim.fn.filereadable(file) ~= 1 then
    done(nil, "the buffer has no file and no sessionls server is attached")
    return
  end
  if vim.bo[bufnr].modified then
    done(nil, "the buffer has unsaved changes and no sessionls server maps it: :write it first")
    return
  end
  local cmd = { M.config.cmd[1], "map" }
  if M.config.budget then
    vim.list_extend(cmd, { "--budget", tostring(M.config.budget) })
  end
  vim.list_extend(cmd, { "-o", out, "--", file })
  local stderr = {}
  local job = vim.fn.jobstart(cmd, {
    stderr_buffered = true,
    on_stderr = function(_, data)
      stderr = data or {}
    end,
    on_exit = function(_, code)
      vim.schedule(function()
        -- 1: the page is written, but the file does not load (it says so).
        if code == 0 or code == 1 then
          done(out)
        else
          done(nil, table.concat(cmd, " ") .. " failed: " .. table.concat(stderr, " "))
        end
      end)
    end,
  })
  if job <= 0 then
    done(nil, "cannot run " .. tostring(M.config.cmd[1]))
  end
end

-- M.map(bufnr, on_done): writes the buffer's context map page and opens
-- it. on_done(path) is called with the page's path once it is written, or
-- on_done(nil, why) when there is none.
function M.map(bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  on_done = on_done or function() end
  local out = M.map_path(bufnr)
  local function done(path, why)
    if not path then
      notify("no context map: " .. why, vim.log.levels.WARN)
      on_done(nil, why)
      return
    end
    local how = open_page(path)
    if how then
      notify("context map: " .. path)
    else
      notify("context map written to " .. path
        .. " (no browser opener: no vim.ui.open, xdg-open or open; open the file yourself, or set map_open)")
    end
    on_done(path)
  end
  local client = M.clients(bufnr)[1]
  if client then
    local params = { uri = vim.uri_from_bufnr(bufnr), html = true }
    client_call(client, "request", "sessionls/contextMap", params, function(err, result)
      if err and err.code == -32601 then
        -- A server older than the request: the CLI maps the saved file.
        map_with_cli(bufnr, out, done)
        return
      end
      if err or type(result) ~= "table" or type(result.html) ~= "string" then
        done(nil, "the server did not answer sessionls/contextMap ("
          .. tostring(err and err.message or "no page") .. ")")
        return
      end
      local okw, werr = write_file(out, result.html)
      done(okw and out or nil, werr and ("cannot write " .. out .. ": " .. werr))
    end, bufnr)
    return
  end
  map_with_cli(bufnr, out, done)
end

local function define_command()
  vim.api.nvim_create_user_command("SessionlsFixAll", function()
    M.fix_all(0)
  end, { desc = "Apply every safe sessionls fix to the buffer (as sessionls check --fix)" })
  vim.api.nvim_create_user_command("SessionlsMap", function()
    M.map(0)
  end, { desc = "Write the buffer's context map (sessionls map) and open it in the browser" })
  vim.api.nvim_create_user_command("SessionlsBudget", function(opts)
    if opts.args == "" then
      notify(M.budget_text(0))
      return
    end
    M.set_budget(opts.args)
  end, {
    nargs = "?",
    complete = function()
      return { "off" }
    end,
    desc = "Set the sessionls context budget (characters), or clear it with off",
  })
end

local function register_filetype()
  if vim.filetype and vim.filetype.add then
    vim.filetype.add({ extension = { jsonl = "jsonl" } })
  end
  -- Neovim 0.7 only consults vim.filetype with g:do_filetype_lua = 1, and
  -- nothing knows *.jsonl there: an autocmd covers every version.
  -- setfiletype leaves a filetype that was already detected alone.
  local group = vim.api.nvim_create_augroup(augroup_name .. "_ft", { clear = true })
  vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
    group = group,
    pattern = "*.jsonl",
    command = "setfiletype jsonl",
  })
  -- Highlighting comes from syntax/jsonl.vim beside this plugin (JSON's,
  -- line by line): setting 'syntax' here lost to `:syntax on`, which runs
  -- after init.lua and sets it back to the filetype.
end

function M.setup(opts)
  opts = opts or {}
  if opts.budget ~= nil then
    local b, why = M.parse_budget(opts.budget)
    if not b then
      error("sessionls.setup: budget: " .. why, 2)
    end
    opts.budget = b
  end
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts)
  if opts.cmd then
    M.config.cmd = opts.cmd -- a list is replaced, not merged
  end
  if opts.filetypes then
    M.config.filetypes = opts.filetypes
  end
  register_filetype()
  define_command()
  watch_config_files()
  define_highlights()
  vim.api.nvim_create_autocmd("ColorScheme", {
    group = vim.api.nvim_create_augroup(augroup_name .. "_hl", { clear = true }),
    callback = define_highlights,
  })
  vim.lsp.commands[COMMAND_SET_BUDGET] = lens_set_budget
  vim.lsp.commands[COMMAND_REMOVE_DISK_BOM] = remove_disk_bom
  hook_lens_display()
  watch_top_lenses()

  local builtin = vim.lsp.config ~= nil and vim.lsp.enable ~= nil
  if builtin then
    -- Neovim 0.11+: let the built-in machinery start and attach.
    local cfg = client_config(M.config)
    cfg.filetypes = M.config.filetypes
    cfg.root_markers = { ".git" }
    vim.lsp.config(NAME, cfg)
    vim.lsp.enable(NAME)
  else
    local group = vim.api.nvim_create_augroup(augroup_name .. "_attach", { clear = true })
    vim.api.nvim_create_autocmd("FileType", {
      group = group,
      pattern = M.config.filetypes,
      callback = function(args)
        M.attach(args.buf)
      end,
    })
  end
  -- Buffers that were already open when setup() ran: a *.jsonl one with
  -- no filetype yet gets one (FileType then attaches it); one that has
  -- the filetype already is attached here (before 0.11).
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      if vim.bo[b].filetype == "" and vim.api.nvim_buf_get_name(b):match("%.jsonl$") then
        vim.bo[b].filetype = "jsonl"
      elseif not builtin and vim.tbl_contains(M.config.filetypes, vim.bo[b].filetype) then
        M.attach(b)
      end
    end
  end
  return M
end

return M

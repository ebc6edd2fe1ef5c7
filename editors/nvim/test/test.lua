-- Headless end-to-end test of the sessionls Neovim plugin against the real
-- server. Every expected value comes from the sessionls CLI run on the same
-- content (check --format json, budget --format json).
--
-- Environment: SESSIONLS_BIN (server/CLI), SESSIONLS_PLUGIN (editors/nvim),
-- SESSIONLS_FILE (a scratch copy of a session file), SESSIONLS_TMP (scratch dir).

local bin = assert(os.getenv("SESSIONLS_BIN"), "SESSIONLS_BIN is not set")
local plugin = assert(os.getenv("SESSIONLS_PLUGIN"), "SESSIONLS_PLUGIN is not set")
local file = assert(os.getenv("SESSIONLS_FILE"), "SESSIONLS_FILE is not set")
local tmp = assert(os.getenv("SESSIONLS_TMP"), "SESSIONLS_TMP is not set")

local WAIT = 10000
local checks = 0

local function log(fmt, ...)
  io.stdout:write(string.format(fmt, ...) .. "\n")
  io.stdout:flush()
end

local function fail(fmt, ...)
  error(string.format(fmt, ...), 0)
end

local function ok(cond, fmt, ...)
  checks = checks + 1
  if not cond then
    fail(fmt, ...)
  end
end

---------------------------------------------------------------- CLI oracle

local function cli(args)
  local cmd = { bin }
  vim.list_extend(cmd, args)
  local out = vim.fn.system(cmd)
  local code = vim.v.shell_error
  local okj, decoded = pcall(vim.fn.json_decode, out)
  if not okj then
    fail("sessionls %s (exit %d) printed no JSON: %s", table.concat(args, " "), code, out)
  end
  return decoded
end

local function buffer_to_file(buf, path)
  -- Exactly the buffer's text as the server sees it: lines joined by \n,
  -- with a final \n when 'eol' is set (as a write would).
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  local text = table.concat(lines, "\n")
  if vim.bo[buf].eol then
    text = text .. "\n"
  end
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

local function nonnull(v)
  if v == vim.NIL then
    return nil
  end
  return v
end

-------------------------------------------------------- expected lens texts

-- 1234567 -> "1,234,567" (en-US).
local function thousands(n)
  local s = tostring(math.floor(n))
  local neg = s:sub(1, 1) == "-"
  if neg then
    s = s:sub(2)
  end
  local out = s:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  out = out:gsub("^,", "")
  return (neg and "-" or "") .. out
end

local function plural(n, word)
  return string.format("%s %s%s", thousands(n), word, n == 1 and "" or "s")
end

-- Expected lenses {line (1-based), title} from `sessionls budget` JSON.
local function expected_lenses(bj, budget)
  local out = {}
  local units = nonnull(bj.units) or {}
  local from = 0
  local from_newest = {}
  for i = #units, 1, -1 do
    from = from + units[i].chars
    from_newest[i] = from
  end
  for i, u in ipairs(units) do
    table.insert(out, {
      line = u.startLine,
      title = string.format("%s chars · %s · %s from newest",
        thousands(u.chars), plural(u.messages, "message"), thousands(from_newest[i])),
    })
  end
  local cutoff = nonnull(bj.cutoff)
  if not budget then
    table.insert(out, {
      line = 1,
      title = string.format("Σ %s chars · %s · set a context budget",
        thousands(bj.totalChars), plural(bj.messages, "message")),
    })
  elseif cutoff then
    local last = units[#units].endLine
    table.insert(out, {
      line = cutoff.firstKeptLine,
      title = string.format("✂ budget %s · keeps lines %d–%d · %s chars · %s above trimmed",
        thousands(budget), cutoff.firstKeptLine, last, thousands(cutoff.keptChars),
        plural(cutoff.firstKeptLine - 1, "line")),
    })
  end
  return out
end

local function sort_pairs(list)
  table.sort(list, function(a, b)
    if a.line ~= b.line then
      return a.line < b.line
    end
    return a.title < b.title
  end)
  return list
end

local function lens_list(buf)
  local out = {}
  for _, l in ipairs(vim.lsp.codelens.get(buf) or {}) do
    if l.command and l.command.title then
      table.insert(out, { line = l.range.start.line + 1, title = l.command.title })
    end
  end
  return sort_pairs(out)
end

local function show(list)
  local s = {}
  for _, x in ipairs(list) do
    table.insert(s, string.format("  %d: %s", x.line, x.title))
  end
  return table.concat(s, "\n")
end

local function same(a, b)
  return vim.deep_equal(a, b)
end

---------------------------------------------------------------- the plugin

vim.opt.runtimepath:prepend(plugin)
vim.g.mapleader = " "
local sessionls = require("sessionls")

local function refresh(buf)
  sessionls.refresh_codelens(buf)
end

-- Count codeLens responses, to know that a refresh really happened (the
-- lenses may already look right from an earlier answer) and that none is
-- in flight: Neovim 0.7 drops a refresh while one is pending.
local lens_responses = 0
do
  local orig = vim.lsp.codelens.on_codelens
  vim.lsp.codelens.on_codelens = function(...)
    lens_responses = lens_responses + 1
    return orig(...)
  end
end

-- Wait until a codeLens answer newer than `since` has arrived and the
-- lenses equal want. With do_refresh the test asks for lenses itself;
-- without, the plugin must have (on attach, InsertLeave, BufWritePost...).
local function wait_lenses(buf, want, what, since, do_refresh)
  want = sort_pairs(vim.deepcopy(want))
  if do_refresh then
    refresh(buf)
  end
  local done = vim.wait(WAIT, function()
    return lens_responses > since and same(lens_list(buf), want)
  end, 20)
  if not done and lens_responses <= since then
    fail("%s: no codeLens answer arrived (no refresh was sent?)", what)
  end
  ok(done, "%s: code lenses differ.\nwant:\n%s\ngot:\n%s", what, show(want), show(lens_list(buf)))
  log("ok   %s: %d lenses", what, #want)
end

-- Diagnostics as {line, col (byte, 0-based), code, severity, message}.
local severity_name = { "error", "warning", "info", "hint" }

local function diag_list(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out, {
      line = d.lnum + 1,
      col = d.col,
      code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code),
      severity = severity_name[d.severity],
      message = d.message,
      source = d.source,
    })
  end
  return out
end

-- The CLI's findings mapped to what Neovim shows: 1-based UTF-16 columns
-- become 0-based byte columns of the buffer line.
local function expected_diags(buf, findings)
  local out = {}
  for _, f in ipairs(findings) do
    local text = vim.api.nvim_buf_get_lines(buf, f.line - 1, f.line, false)[1] or ""
    local okb, col = pcall(vim.str_byteindex, text, f.column - 1, true)
    if not okb then
      col = #text
    end
    table.insert(out, {
      line = f.line,
      col = col,
      code = f.code,
      severity = f.severity == "information" and "info" or f.severity,
      message = f.message,
      source = "sessionls",
    })
  end
  return out
end

local function diag_key(d)
  return string.format("%05d:%05d:%s:%s:%s", d.line, d.col, d.code or "", d.severity or "", d.message or "")
end

local function sorted_diags(list, drop_budget)
  local out = {}
  for _, d in ipairs(list) do
    if not (drop_budget and d.code and d.code:match("^budget%-")) then
      table.insert(out, d)
    end
  end
  table.sort(out, function(a, b)
    return diag_key(a) < diag_key(b)
  end)
  return out
end

local function show_diags(list)
  local s = {}
  for _, d in ipairs(list) do
    table.insert(s, string.format("  %d:%d %s %s [%s] %s", d.line, d.col, d.severity, d.source or "?",
      d.code or "", d.message))
  end
  return table.concat(s, "\n")
end

-- Wait until Neovim's diagnostics equal the CLI's check of the buffer text.
-- drop_budget ignores budget-* findings (the CLI's check has no budget).
local function wait_diags(buf, what, drop_budget)
  local path = buffer_to_file(buf, tmp .. "/check.jsonl")
  local want = sorted_diags(expected_diags(buf, cli({ "check", "--format", "json", path })), drop_budget)
  local done = vim.wait(WAIT, function()
    return same(sorted_diags(diag_list(buf), drop_budget), want)
  end, 20)
  ok(done, "%s: diagnostics differ.\nwant (from sessionls check):\n%s\ngot:\n%s", what,
    show_diags(want), show_diags(sorted_diags(diag_list(buf), drop_budget)))
  log("ok   %s: %d diagnostics", what, #want)
  return want
end

local function budget_json(buf, n)
  local path = buffer_to_file(buf, tmp .. "/budget.jsonl")
  local args = { "budget", "--format", "json" }
  if n then
    vim.list_extend(args, { "--max-chars", tostring(n) })
  end
  table.insert(args, path)
  return cli(args)
end

---------------------------------------------------------------- the test

local function run()
  sessionls.setup({ cmd = { bin, "serve" } })
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()

  ok(vim.bo[buf].filetype == "jsonl", "filetype is %q, want jsonl", vim.bo[buf].filetype)
  log("ok   *.jsonl gets filetype jsonl")

  local attached = vim.wait(WAIT, function()
    local c = sessionls.clients(buf)[1]
    return c ~= nil and c.initialized ~= false
  end, 20)
  ok(attached, "no sessionls client attached to the buffer")
  log("ok   server started and attached")

  -- 1. Diagnostics of the untouched file equal the CLI's.
  local findings = wait_diags(buf, "initial diagnostics", false)
  ok(#findings > 0, "the test file has no findings: pick a file that does")

  -- 2. Lenses without a budget; the plugin refreshes them on attach.
  local bj = budget_json(buf, nil)
  ok(type(bj.units) == "table" and #bj.units >= 2, "budget json has fewer than 2 units: %s", vim.inspect(bj))
  wait_lenses(buf, expected_lenses(bj, nil), "lenses on open (refreshed by the plugin)", 0, false)

  -- 3. :SessionlsBudget rejects what is not a positive integer.
  for _, bad in ipairs({ "abc", "0", "-5", "1.5" }) do
    local before = sessionls.config.budget
    vim.cmd("silent! SessionlsBudget " .. bad)
    ok(sessionls.config.budget == before, ":SessionlsBudget %s changed the budget to %s", bad,
      tostring(sessionls.config.budget))
  end
  log("ok   :SessionlsBudget rejects abc, 0, -5, 1.5")

  -- 4. A budget that keeps the newest half of the units, set with the command.
  local units = bj.units
  local mid = math.floor(#units / 2) + 1
  local n = 0
  for i = mid, #units do
    n = n + units[i].chars
  end
  n = n + math.floor(units[mid - 1].chars / 2) -- room, but not enough for the next-older unit
  local since = lens_responses
  vim.cmd("SessionlsBudget " .. n)
  ok(sessionls.config.budget == n, "budget is %s after :SessionlsBudget %d", tostring(sessionls.config.budget), n)
  local bn = budget_json(buf, n)
  local cutoff = nonnull(bn.cutoff)
  ok(cutoff ~= nil, "sessionls budget --max-chars %d gives no cutoff: %s", n, vim.inspect(bn))
  ok(cutoff.firstKeptLine == units[mid].startLine, "CLI cutoff at line %d, want %d (unit %d)",
    cutoff.firstKeptLine, units[mid].startLine, mid)
  wait_lenses(buf, expected_lenses(bn, n), ":SessionlsBudget " .. n .. " cutoff lens (refreshed by the plugin)", since, false)

  -- 5. Type non-BMP text in insert mode after non-ASCII text on line 1:
  -- Neovim sends a ranged incremental change whose UTF-16 column differs
  -- from the byte column. InsertLeave refreshes the lenses.
  local line1 = vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1]
  local close = line1:find('"}%s*$')
  ok(close ~= nil, 'line 1 does not end with "}: %s', line1)
  vim.api.nvim_win_set_cursor(0, { 1, close - 1 }) -- on the closing quote (0-based byte col)
  since = lens_responses
  local keys = vim.api.nvim_replace_termcodes("ié🙂<Esc>", true, false, true)
  vim.api.nvim_feedkeys(keys, "xt", false)
  local edited = vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1]
  ok(edited == line1:sub(1, close - 1) .. "é🙂" .. line1:sub(close), "insert went wrong: %s", edited)
  ok(vim.fn.mode() == "n", "still in mode %s after <Esc>", vim.fn.mode())
  wait_lenses(buf, expected_lenses(budget_json(buf, n), n), "lenses after typing é🙂 (InsertLeave refresh)", since, false)
  wait_diags(buf, "diagnostics after typing é🙂", true)

  -- 6. Break line 1: delete its closing brace (a ranged deletion after the
  -- astral characters). The new invalid-json finding sits at the end of
  -- the line: UTF-16 column = UTF-16 length + 1, byte column = #line.
  local before_break = vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1]
  local brace = #before_break - 1 -- 0-based byte col of the final "}"
  ok(before_break:sub(-1) == "}", "line 1 does not end with }")
  vim.api.nvim_buf_set_text(buf, 0, brace, 0, brace + 1, { "" })
  local broken = vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1]
  local want = wait_diags(buf, "diagnostics after deleting the } of line 1", true)
  local found
  for _, d in ipairs(want) do
    if d.line == 1 and d.code == "invalid-json" then
      found = d
    end
  end
  ok(found ~= nil, "the CLI reports no invalid-json on line 1 of the broken text:\n%s", show_diags(want))
  local check = cli({ "check", "--format", "json", buffer_to_file(buf, tmp .. "/broken.jsonl") })
  local utf16_len = select(2, vim.str_utfindex(broken))
  for _, f in ipairs(check) do
    if f.line == 1 and f.code == "invalid-json" then
      ok(f.column == utf16_len + 1, "CLI column %d, want UTF-16 length + 1 = %d", f.column, utf16_len + 1)
    end
  end
  ok(found.col == #broken, "Neovim shows the error at byte col %d, want %d (end of line)", found.col, #broken)
  log("ok   new invalid-json on line 1 at UTF-16 col %d = byte col %d", utf16_len + 1, #broken)

  -- 7. Put the brace back: the error goes, the lenses match the CLI again.
  vim.api.nvim_buf_set_text(buf, 0, brace, 0, brace, { "}" })
  ok(vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1] == before_break, "fix went wrong")
  want = wait_diags(buf, "diagnostics after restoring the }", true)
  for _, d in ipairs(want) do
    ok(not (d.line == 1 and d.code == "invalid-json"), "line 1 still invalid after the fix")
  end
  wait_lenses(buf, expected_lenses(budget_json(buf, n), n), "lenses after the fix", lens_responses, true)

  -- 8. A write refreshes the lenses (BufWritePost): add a message at the
  -- end without refreshing, see the lenses are stale, then :write.
  local count = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, count, count, true, { '{"role":"user","content":"one more «line» 🙂"}' })
  wait_diags(buf, "diagnostics after appending a line", true)
  local after_append = expected_lenses(budget_json(buf, n), n)
  ok(not same(lens_list(buf), sort_pairs(vim.deepcopy(after_append))), "lenses changed before :write")
  since = lens_responses
  vim.cmd("silent write")
  wait_lenses(buf, after_append, "lenses after :write (BufWritePost refresh)", since, false)
end

local status, err = xpcall(run, debug.traceback)
if status then
  log("ALL OK: %d checks on nvim %d.%d.%d", checks, vim.version().major, vim.version().minor, vim.version().patch)
  vim.cmd("qall!")
else
  log("ERROR after %d checks: %s", checks, tostring(err))
  vim.cmd("cquit 1")
end


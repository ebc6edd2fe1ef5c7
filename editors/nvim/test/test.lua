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

-- The first line where loadSession throws, from `sessionls check` findings
-- (nil when the file loads).
-- The codes of a line the runtime refuses: JSON.parse's and the record
-- rules' verdicts, and the causes of damage (analysis.IsRefusal).
local REFUSALS = {
  ["invalid-json"] = true,
  ["invalid-record"] = true,
  ["truncated-record"] = true,
  ["interleaved-record"] = true,
  ["zero-filled"] = true,
  ["split-record"] = true,
}

local function first_invalid_line(findings)
  local first
  for _, f in ipairs(findings) do
    if f.severity == "error" and REFUSALS[f.code] then
      if not first or f.line < first then
        first = f.line
      end
    end
  end
  return first
end

-- Expected lenses {line (1-based), title | pattern} from `sessionls budget`
-- JSON bj (its --max-chars is `budget`; nil for no budget) and `sessionls
-- check` findings. The titles are those of lsp/lenses.go.
--
-- When the file does not load, the CLI's budget JSON has no units or
-- totals, while the server still counts the valid lines: then only the
-- budget lens is known exactly (with a budget), or by shape (without).
-- The second result says the unit lenses are unknown.
-- The end of the ✂ lens: how many messages above the cut are trimmed.
local function trimmed_phrase(n)
  if n == 0 then
    return "nothing trimmed"
  elseif n == 1 then
    return "1 message above is trimmed"
  end
  return plural(n, "message") .. " above are trimmed"
end

local function expected_lenses(bj, budget, findings)
  local out = {}
  local units = nonnull(bj.units) or {}
  local invalid = first_invalid_line(findings)
  local partial = invalid ~= nil and #units == 0
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
  local err = nonnull(bj.error)
  if not budget then
    if partial then
      table.insert(out, { line = 1, pattern = "^Σ [%d,]+ chars · [%d,]+ messages? · the file does not load %(line "
        .. invalid .. " is invalid%)$" })
    else
      table.insert(out, {
        line = 1,
        title = string.format("Σ %s chars · %s · set a context budget",
          thousands(bj.totalChars), plural(bj.messages, "message")),
      })
    end
  elseif invalid then
    table.insert(out, {
      line = 1,
      title = string.format("✂ budget %s: the file does not load (line %d is invalid)", thousands(budget), invalid),
    })
  elseif cutoff then
    local first, last = cutoff.firstKeptLine, units[#units].endLine
    local kept = 0
    for _, u in ipairs(units) do
      if u.startLine >= first then
        kept = kept + u.messages
      end
    end
    local range = first == last and string.format("line %d", first) or string.format("lines %d–%d", first, last)
    table.insert(out, {
      line = first,
      title = string.format("✂ budget %s · keeps %s · %s chars · %s",
        thousands(budget), range, thousands(cutoff.keptChars), trimmed_phrase(bj.messages - kept)),
    })
  elseif err then
    -- A budget too small for the newest unit: the lens adds the least
    -- budget that works (the CLI's minBudget).
    local least = nonnull(bj.minBudget)
    if least and err == "context budget cannot contain the smallest consistent message unit" then
      err = err .. "; the least budget that works is " .. thousands(least)
    end
    table.insert(out, {
      line = #units > 0 and units[#units].startLine or 1,
      title = string.format("✂ budget %s: %s", thousands(budget), err),
    })
  end
  return out, partial
end

local function sort_pairs(list)
  table.sort(list, function(a, b)
    if a.line ~= b.line then
      return a.line < b.line
    end
    return (a.title or a.pattern) < (b.title or b.pattern)
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
    table.insert(s, string.format("  %d: %s", x.line, x.title or ("/" .. x.pattern .. "/")))
  end
  return table.concat(s, "\n")
end

local function is_budget_lens(l)
  return l.title:sub(1, #"Σ") == "Σ" or l.title:sub(1, #"✂") == "✂"
end

-- got matches want: same lines, equal titles or titles matching patterns.
-- With partial, only the budget lens (Σ or ✂) is compared.
local function lenses_match(got, want, partial)
  if partial then
    got = vim.tbl_filter(is_budget_lens, got)
  end
  if #got ~= #want then
    return false
  end
  for i = 1, #got do
    local g, w = got[i], want[i]
    if g.line ~= w.line then
      return false
    end
    if w.title and g.title ~= w.title then
      return false
    end
    if w.pattern and not g.title:match(w.pattern) then
      return false
    end
  end
  return true
end

local function same(a, b)
  return vim.deep_equal(a, b)
end

-- The budget `sessionls config` reports for the session file (from the
-- sessionls.toml beside it).
function sessionls_cli_config()
  local out = vim.fn.system({ bin, "config", "--format", "json", file })
  local okj, decoded = pcall(vim.fn.json_decode, out)
  if not okj then
    fail("sessionls config --format json printed no JSON: %s", out)
  end
  return decoded.settings.budget.value
end

---------------------------------------------------------------- the plugin

vim.opt.runtimepath:prepend(plugin)
vim.g.mapleader = " "
local sessionls = require("sessionls")

-- stop_clients stops every sessionls client and waits until they are gone.
local function stop_clients()
  for _, c in ipairs(sessionls.clients()) do
    c.stop()
  end
  ok(vim.wait(WAIT, function()
    return #sessionls.clients() == 0
  end, 20), "the sessionls client did not stop")
end

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

-- The lenses as drawn: each lens line > 1 as a virtual line above it,
-- line 1's at its end, with the titles of the cached lenses.
function check_drawn(buf)
  local client = sessionls.clients(buf)[1]
  local ns = vim.api.nvim_create_namespace("vim_lsp_codelens:" .. client.id)
  local drawn = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
    local row, d = m[2], m[4]
    local chunks = d.virt_lines and d.virt_lines[1] or d.virt_text or {}
    local text = ""
    for _, c in ipairs(chunks) do
      text = text .. c[1]
    end
    drawn[row + 1] = { text = text, above = d.virt_lines ~= nil and d.virt_lines_above == true }
  end
  local titles = {}
  for _, l in ipairs(vim.lsp.codelens.get(buf) or {}) do
    titles[l.range.start.line + 1] = titles[l.range.start.line + 1] or {}
    table.insert(titles[l.range.start.line + 1], l.command.title)
  end
  local n = 0
  for line, ts in pairs(titles) do
    local d = drawn[line]
    ok(d ~= nil, "no lens drawn on line %d", line)
    ok(d.text == table.concat(ts, " | "), "line %d draws %q, want %q", line, d.text, table.concat(ts, " | "))
    ok(d.above, "line %d's lenses are not drawn on a virtual line above it", line)
    n = n + 1
  end
  ok(n >= 2, "only %d lens lines drawn", n)
  if titles[1] and vim.api.nvim_win_get_buf(0) == buf then
    local view = vim.fn.winsaveview()
    ok(view.topline ~= 1 or (view.topfill or 0) >= 1, "line 1's lens is hidden: the window at line 1 has topfill %s", tostring(view.topfill))
  end
  log("ok   %d lens lines drawn on virtual lines above their line (line 1's shown as top filler)", n)
  -- Scrolled away and back with gg: the window comes back to line 1 with
  -- no filler, and the plugin's WinScrolled handler shows the lens again.
  -- Neovim's main loop fires WinScrolled after a scroll; this test runs
  -- inside one :luafile, where it does not turn, so the event is fired here,
  -- and checked at once (no wait: a lens refresh in between would restore
  -- the filler by itself and prove nothing).
  if titles[1] and vim.api.nvim_win_get_buf(0) == buf and vim.api.nvim_buf_line_count(buf) > 3 then
    vim.cmd("normal! G")
    vim.cmd("normal! gg")
    vim.fn.winrestview({ topline = 1, topfill = 0 })
    ok((vim.fn.winsaveview().topfill or 0) == 0, "the view kept a filler: the check would prove nothing")
    vim.cmd("doautocmd <nomodeline> WinScrolled")
    local v = vim.fn.winsaveview()
    ok(v.topline == 1 and (v.topfill or 0) >= 1, "after G and gg line 1's lens is hidden: %s", vim.inspect(v))
    log("ok   line 1's lens is shown again after scrolling away and gg")
  end
end

-- Wait until a codeLens answer newer than `since` has arrived and the
-- lenses equal want. With do_refresh the test asks for lenses itself;
-- without, the plugin must have (on attach, InsertLeave, BufWritePost...).
local function wait_lenses(buf, want, partial, what, since, do_refresh)
  want = sort_pairs(vim.deepcopy(want))
  if do_refresh then
    refresh(buf)
  end
  local done = vim.wait(WAIT, function()
    return lens_responses > since and lenses_match(lens_list(buf), want, partial)
  end, 20)
  if not done and lens_responses <= since then
    fail("%s: no codeLens answer arrived (no refresh was sent?)", what)
  end
  ok(done, "%s: code lenses differ.\nwant:\n%s\ngot:\n%s", what, show(want), show(lens_list(buf)))
  log("ok   %s: %d lenses%s", what, #want, partial and " (budget lens only: the CLI gives no units for a file that does not load)" or "")
end

-- Diagnostics as {line, col (byte, 0-based), code, severity, message}.
local severity_name = { "error", "warning", "info", "hint" }

-- Whether an LSP diagnostic carries the Unnecessary tag (1).
local function is_unnecessary(d)
  local lsp = d.user_data and d.user_data.lsp
  return type(lsp) == "table" and type(lsp.tags) == "table" and vim.tbl_contains(lsp.tags, 1)
end

-- Whether this Neovim tells the server it can show Unnecessary-tagged
-- ranges: then the server fades the trimmed lines instead of reporting
-- budget-cutoff on the first kept line.
local FADES = (function()
  local pd = vim.lsp.protocol.make_client_capabilities().textDocument.publishDiagnostics or {}
  local ts = pd.tagSupport
  return type(ts) == "table" and type(ts.valueSet) == "table" and vim.tbl_contains(ts.valueSet, 1)
end)()

local function diag_list(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out, {
      tags = is_unnecessary(d) and "unnecessary" or nil,
      line = d.lnum + 1,
      col = d.col,
      end_line = d.end_lnum + 1,
      end_col = d.end_col,
      code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code),
      severity = severity_name[d.severity],
      message = d.message,
      source = d.source,
    })
  end
  return out
end

-- A 1-based UTF-16 column of a buffer line as Neovim's 0-based byte column.
local function byte_col(buf, line, col16)
  local text = vim.api.nvim_buf_get_lines(buf, line - 1, line, false)[1] or ""
  local okb, col = pcall(vim.str_byteindex, text, col16 - 1, true)
  if not okb then
    col = #text
  end
  return col
end

local function line_text(buf, line)
  return (vim.api.nvim_buf_get_lines(buf, line - 1, line, false)[1] or ""):gsub("\r$", "")
end

-- The faded region the server publishes instead of the CLI's budget-cutoff
-- finding f (on the first kept line) when the client shows Unnecessary
-- tags: lines 1 to the line before, or nothing when no line is trimmed.
-- The budget and the trimmed messages are read from f's message:
-- "budget 8,000 keeps lines 12–40: …; 11 messages above are trimmed".
local function faded_diag(buf, f)
  if f.line <= 1 then
    return nil
  end
  local budget = f.message:match("^budget ([%d,]+) keeps")
  local dropped = tonumber((f.message:match("; ([%d,]+) messages? above %a+ trimmed$") or "0"):gsub(",", ""), 10)
  ok(budget ~= nil, "cannot read the budget from the CLI's budget-cutoff message %q", f.message)
  local last = f.line - 1
  return {
    line = 1,
    col = 0,
    end_line = last,
    end_col = #line_text(buf, last),
    code = f.code,
    severity = "hint",
    tags = "unnecessary",
    message = string.format("trimmed by budget %s: the model will not see %s (%s)", budget,
      last == 1 and "line 1" or string.format("lines 1–%d", last), plural(dropped, "message")),
    source = "sessionls",
  }
end

-- The CLI's findings mapped to what Neovim shows: 1-based UTF-16 columns
-- (the end one exclusive) become 0-based byte columns of the buffer line.
local function expected_diags(buf, findings)
  local out = {}
  for _, f in ipairs(findings) do
    if FADES and f.code == "budget-cutoff" then
      table.insert(out, faded_diag(buf, f))
      goto continue
    end
    local end_col = byte_col(buf, f.endLine, f.endColumn)
    if f.line == f.endLine and f.column == 1 and f.endColumn == 1 then
      -- A finding about a whole line (the CLI prints column 1 to 1): the
      -- server underlines the line's text.
      local text = vim.api.nvim_buf_get_lines(buf, f.line - 1, f.line, false)[1] or ""
      end_col = #(text:gsub("\r$", ""))
    end
    table.insert(out, {
      line = f.line,
      col = byte_col(buf, f.line, f.column),
      end_line = f.endLine,
      end_col = end_col,
      code = f.code,
      severity = f.severity == "information" and "info" or f.severity,
      message = f.message,
      source = "sessionls",
    })
    ::continue::
  end
  return out
end

local function diag_key(d)
  return string.format("%05d:%05d:%05d:%05d:%s:%s:%s:%s", d.line, d.col, d.end_line, d.end_col, d.code or "",
    d.severity or "", d.tags or "", d.message or "")
end

local function sorted_diags(list)
  local out = vim.deepcopy(list)
  table.sort(out, function(a, b)
    return diag_key(a) < diag_key(b)
  end)
  return out
end

local function show_diags(list)
  local s = {}
  for _, d in ipairs(list) do
    table.insert(s, string.format("  %d:%d-%d:%d %s%s %s [%s] %s", d.line, d.col, d.end_line, d.end_col, d.severity,
      d.tags and (" (" .. d.tags .. ")") or "", d.source or "?", d.code or "", d.message))
  end
  return table.concat(s, "\n")
end

-- Finding codes the current setup() turns off (mirrored into the CLI).
local disabled = {}

-- `sessionls check --format json` of the file at path, with --budget when
-- n is set and the codes setup() turns off.
local function check_file_json(path, n)
  local args = { "check", "--format", "json" }
  if n then
    vim.list_extend(args, { "--budget", string.format("%d", n) })
  end
  if #disabled > 0 then
    vim.list_extend(args, { "--disable", table.concat(disabled, ",") })
  end
  table.insert(args, path)
  return cli(args)
end

-- `sessionls check` of the buffer's text, with --budget when n is set.
local function check_json(buf, n, name)
  return check_file_json(buffer_to_file(buf, tmp .. "/" .. (name or "check.jsonl")), n)
end

-- Wait until Neovim's diagnostics equal `sessionls check [--budget n]` of
-- the buffer text.
local function wait_diags(buf, what, n)
  local want = sorted_diags(expected_diags(buf, check_json(buf, n)))
  ok(#want > 0 or what:find("none expected", 1, true), "%s: the CLI reports nothing: a vacuous comparison", what)
  local done = vim.wait(WAIT, function()
    return same(sorted_diags(diag_list(buf)), want)
  end, 20)
  ok(done, "%s: diagnostics differ.\nwant (from sessionls check):\n%s\ngot:\n%s", what,
    show_diags(want), show_diags(sorted_diags(diag_list(buf))))
  log("ok   %s: %d diagnostics", what, #want)
  return want
end

-- `sessionls budget` JSON for the buffer's text. The CLI always needs
-- --max-chars: without a budget ask for 2^53 (its units do not depend on it).
local NO_BUDGET = "9007199254740992"

local function budget_json(buf, n)
  local path = buffer_to_file(buf, tmp .. "/budget.jsonl")
  return cli({ "budget", "--format", "json", "--max-chars", n and string.format("%d", n) or NO_BUDGET, path })
end

-- The lenses the server must show for the buffer's text and budget n.
local function expect(buf, n)
  local bj = budget_json(buf, n)
  local findings = check_json(buf, n)
  local want, partial = expected_lenses(bj, n, findings)
  return want, partial, bj, findings
end

local function set_text(buf, line, col, end_col, text)
  vim.api.nvim_buf_set_text(buf, line - 1, col, line - 1, end_col, { text })
end

---------------------------------------------------------------- the test


-- What the screen shows of the fade (Neovim before 0.10, where the plugin
-- draws it): with line `top` at the top of the window, every trimmed line
-- on screen has one attribute, SessionlsTrimmed's, and kept lines another.
-- Returns the trimmed lines' attribute. Screen rows are matched to lines
-- by what they show: each line of these files starts with {"role", while
-- lens rows (virtual lines) and wrapped rows do not (0.7's screenpos()
-- counts a line's virtual lines as its own).
local function fade_attrs(buf, top, cut)
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.fn.winrestview({ topline = top, lnum = top, col = 0 })
  vim.cmd("redraw!")
  local pos = vim.fn.win_screenpos(win)
  local col = pos[2] + vim.fn.getwininfo(win)[1].textoff
  local faded, kept
  local line = top - 1
  for row = pos[1], pos[1] + vim.api.nvim_win_get_height(win) - 1 do
    local head = {}
    for c = col, col + 6 do
      table.insert(head, vim.fn.nr2char(vim.fn.screenchar(row, c)))
    end
    if table.concat(head) == '{"role"' then
      line = line + 1
      local a = vim.fn.screenattr(row, col)
      if line < cut then
        ok(faded == nil or a == faded, "trimmed line %d is drawn with attribute %d, the line above it with %d",
          line, a, faded or -1)
        faded = a
      else
        kept = kept or a
      end
    end
  end
  ok(line >= top, "no line of the buffer found on screen from line %d", top)
  ok(faded == nil or kept == nil or faded ~= kept,
    "trimmed and kept lines are drawn alike (attribute %s)", tostring(faded))
  return faded
end

local function check_fade_drawn(buf, cut)
  local a = fade_attrs(buf, 1, cut)
  ok(a ~= nil and a ~= 0, "the trimmed lines are drawn with no highlight (attribute %s)", tostring(a))
  local ns = vim.lsp.diagnostic.get_namespace(sessionls.clients(buf)[1].id)
  local u = vim.diagnostic.config(nil, ns).underline
  ok(type(u) == "table" and u.severity and u.severity.min == vim.diagnostic.severity.INFO,
    "hints are underlined in the sessionls namespace: %s", vim.inspect(u))
  log("ok   the trimmed lines are drawn faded (attribute %d), with no underline", a)
end

-- Deep inside a long trimmed region: the fade is still drawn (one extmark
-- spanning the region was not, 25 lines past its start, in 0.7).
local function check_deep_fade()
  if vim.fn.has("nvim-0.10") == 1 then
    return
  end
  local path = tmp .. "/long.jsonl"
  local lines = {}
  for i = 1, 300 do
    lines[i] = string.format('{"role":"user","content":"message %03d"}', i)
  end
  vim.fn.writefile(lines, path)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  local budget = 10 * (#lines[1] + 1) -- keeps the last 10 lines
  vim.cmd("SessionlsBudget " .. budget)
  ok(vim.wait(WAIT, function()
    local rows = sessionls.trimmed_rows(buf)
    return #rows == 1 and rows[1][2] == 289
  end, 20), "lines 1-290 of long.jsonl are not faded with budget %d: %s", budget,
    vim.inspect(sessionls.trimmed_rows(buf)))
  local near = fade_attrs(buf, 1, 291)
  for _, top in ipairs({ 30, 150, 270, 285 }) do
    local deep = fade_attrs(buf, top, 291)
    ok(deep == near, "with line %d at the top, trimmed lines are drawn with attribute %s, at the start with %s",
      top, tostring(deep), tostring(near))
  end
  log("ok   a 290-line trimmed region is drawn faded at its start, 30, 150 and 270 lines in, and at its end")
  vim.cmd("bwipeout! " .. buf)
end

-- :SessionlsFixAll leaves the buffer exactly as `sessionls check --fix`
-- leaves the file (Neovim 0.7's code_action() has no "apply": the plugin
-- asks for source.fixAll.sessionls itself and applies its edit).
local function check_fix_all()
  local path = tmp .. "/fixall.jsonl"
  local text = table.concat({
    '{"role":"user","content":"hi",}',
    '{"role":"assistant","content":"ok","toolCalls":[]} {"role":"user","content":"again"}',
    '   ',
    '{"role":"user","content":"tab\there"}',
    '',
  }, "\n")
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  -- The fixed text alone (the findings go to stderr).
  local want = vim.fn.system(vim.fn.shellescape(bin) .. " check --fix - 2>/dev/null", text)
  ok(want ~= text, "check --fix changes nothing in the fix-all test file: the check would be vacuous")
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  ok(vim.wait(WAIT, function()
    return #vim.tbl_filter(function(d)
      return d.source == "sessionls"
    end, vim.diagnostic.get(buf)) > 0
  end, 20), "no diagnostics for fixall.jsonl")
  vim.cmd("SessionlsFixAll")
  local got = buffer_to_file(buf, tmp .. "/fixall-got.jsonl")
  local g = assert(io.open(got, "rb"))
  local gtext = g:read("*a")
  g:close()
  ok(gtext == want, ":SessionlsFixAll left\n%s\nwant (check --fix)\n%s", gtext, want)
  log("ok   :SessionlsFixAll gives check --fix's text")
  vim.cmd("bwipeout! " .. buf)
end

local function run()
  sessionls.setup({ cmd = { bin, "serve" } })
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()

  ok(vim.bo[buf].filetype == "jsonl", "filetype is %q, want jsonl", vim.bo[buf].filetype)
  log("ok   *.jsonl gets filetype jsonl")
  -- JSON highlighting, also when `:syntax on` comes after setup() (as it
  -- does after init.lua): the plugin's syntax/jsonl.vim, not 'syntax'.
  vim.cmd("syntax on")
  vim.cmd("doautocmd FileType jsonl")
  local first = vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1]
  local col = first:find('"role"', 1, true)
  local group = col and vim.fn.synIDattr(vim.fn.synIDtrans(vim.fn.synID(1, col + 1, 1)), "name") or ""
  ok(vim.b[buf].current_syntax == "jsonl" and group ~= "",
    "no JSON highlighting in a jsonl buffer: current_syntax %s, group at \"role\" %q", tostring(vim.b[buf].current_syntax), group)
  -- and a } ending a line before the next record is no "missing comma".
  local nlines = vim.api.nvim_buf_line_count(buf)
  local flagged = {}
  for l = 1, nlines - 1 do
    local text = vim.api.nvim_buf_get_lines(buf, l - 1, l, true)[1]
    if text:sub(-1) == "}" then
      local g = vim.fn.synIDattr(vim.fn.synIDtrans(vim.fn.synID(l, #text, 1)), "name")
      if g == "Error" then
        table.insert(flagged, l)
      end
    end
  end
  ok(#flagged == 0, "lines %s end in a } highlighted as an error (JSON's missing comma)", table.concat(flagged, ","))
  log("ok   *.jsonl is highlighted as JSON (%s at \"role\"), no } flagged as a missing comma", group)

  local attached = vim.wait(WAIT, function()
    local c = sessionls.clients(buf)[1]
    return c ~= nil and c.initialized ~= false
  end, 20)
  ok(attached, "no sessionls client attached to the buffer")
  log("ok   server started and attached")

  -- 1. Diagnostics of the untouched file equal the CLI's.
  local findings = wait_diags(buf, "diagnostics on open", nil)
  ok(first_invalid_line(findings) ~= nil, "the test file loads: this test wants one with an invalid line")

  -- 2. Lenses of a file that does not load; the plugin asks on attach.
  local want, partial = expect(buf, nil)
  wait_lenses(buf, want, partial, "lenses on open (refreshed by the plugin on attach)", 0, false)

  -- 3. Make the file load with ranged edits: every invalid line is fixed
  -- in place (an unknown role becomes "user", a missing } is added).
  for _, f in ipairs(findings) do
    local text = vim.api.nvim_buf_get_lines(buf, f.line - 1, f.line, true)[1]
    if f.code == "invalid-record" and text:find('"role":"system"', 1, true) then
      local at = text:find('"system"', 1, true)
      set_text(buf, f.line, at - 1, at - 1 + #'"system"', '"user"')
    elseif REFUSALS[f.code] and f.code ~= "invalid-record" and text:sub(-1) ~= "}" then
      set_text(buf, f.line, #text, #text, "}")
    end
  end
  findings = wait_diags(buf, "diagnostics after fixing the invalid lines", nil)
  ok(first_invalid_line(findings) == nil, "the file still does not load:\n%s", vim.inspect(findings))

  local bj
  want, partial, bj = expect(buf, nil)
  ok(not partial and #bj.units >= 2, "budget json has fewer than 2 units: %s", vim.inspect(bj))
  wait_lenses(buf, want, false, "lenses of the loading file", lens_responses, true)
  check_drawn(buf)

  -- 4. :SessionlsBudget refuses what is not a positive integer.
  for _, bad in ipairs({ "abc", "-5", "1.5" }) do
    local before = sessionls.config.budget
    vim.cmd("silent! SessionlsBudget " .. bad)
    ok(sessionls.config.budget == before, ":SessionlsBudget %s changed the budget to %s", bad,
      tostring(sessionls.config.budget))
  end
  log("ok   :SessionlsBudget refuses abc, -5, 1.5")

  -- 5. A budget that keeps the newest half of the units.
  local units = bj.units
  local mid = math.floor(#units / 2) + 1
  local n = 0
  for i = mid, #units do
    n = n + units[i].chars
  end
  n = n + math.floor(units[mid - 1].chars / 2) -- room, but not for the next-older unit
  local since = lens_responses
  vim.cmd("SessionlsBudget " .. n)
  ok(sessionls.config.budget == n, "budget is %s after :SessionlsBudget %d", tostring(sessionls.config.budget), n)
  local bn
  want, partial, bn = expect(buf, n)
  local cutoff = nonnull(bn.cutoff)
  ok(cutoff ~= nil, "sessionls budget --max-chars %d gives no cutoff: %s", n, vim.inspect(bn))
  ok(cutoff.firstKeptLine == units[mid].startLine, "CLI cutoff at line %d, want %d (unit %d)",
    cutoff.firstKeptLine, units[mid].startLine, mid)
  wait_lenses(buf, want, partial, ":SessionlsBudget " .. n .. ": cutoff lens on line " .. cutoff.firstKeptLine
    .. " (refreshed by the plugin)", since, false)

  -- 6. Type non-BMP text in insert mode after non-ASCII text on line 1:
  -- Neovim sends a ranged change whose UTF-16 column is not the byte
  -- column. Leaving insert mode refreshes the lenses.
  local line1 = vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1]
  local close = line1:find('"}%s*$')
  ok(close ~= nil, 'line 1 does not end with "}: %s', line1)
  ok(line1:sub(1, close):find("[\240-\244]") ~= nil, "line 1 has no character outside the BMP before its end")
  vim.api.nvim_win_set_cursor(0, { 1, close - 1 }) -- on the closing quote
  since = lens_responses
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("ié🙂<Esc>", true, false, true), "xt", false)
  local edited = vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1]
  ok(edited == line1:sub(1, close - 1) .. "é🙂" .. line1:sub(close), "insert went wrong: %s", edited)
  ok(vim.fn.mode() == "n", "still in mode %s after <Esc>", vim.fn.mode())
  want, partial = expect(buf, n)
  wait_lenses(buf, want, partial, "lenses after typing é🙂 (InsertLeave refresh)", since, false)
  wait_diags(buf, "diagnostics after typing é🙂", n)

  -- 7. Break line 1: delete its closing brace (a ranged deletion after the
  -- astral characters). The new invalid-json finding is at the end of the
  -- line: UTF-16 column = UTF-16 length + 1, byte column = #line.
  local before_break = vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1]
  ok(before_break:sub(-1) == "}", "line 1 does not end with }")
  set_text(buf, 1, #before_break - 1, #before_break, "")
  local broken = vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1]
  local shown = wait_diags(buf, "diagnostics after deleting the } of line 1", n)
  local found
  for _, d in ipairs(shown) do
    if d.line == 1 and REFUSALS[d.code] then
      found = d
    end
  end
  ok(found ~= nil, "the CLI reports no refused line 1 in the broken text:\n%s", show_diags(shown))
  local check = check_json(buf, n, "broken.jsonl")
  local utf16_len = select(2, vim.str_utfindex(broken))
  for _, f in ipairs(check) do
    if f.line == 1 and REFUSALS[f.code] then
      ok(f.column == utf16_len + 1, "CLI column %d, want UTF-16 length + 1 = %d", f.column, utf16_len + 1)
    end
  end
  ok(found.col == #broken, "Neovim shows the error at byte col %d, want %d (end of line)", found.col, #broken)
  log("ok   new %s on line 1 at UTF-16 col %d = byte col %d", found.code, utf16_len + 1, #broken)
  want, partial = expect(buf, n)
  wait_lenses(buf, want, partial, "lenses of the broken file", lens_responses, true)

  -- 8. Put the brace back: the error goes, the lenses match the CLI again.
  set_text(buf, 1, #broken, #broken, "}")
  ok(vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1] == before_break, "fix went wrong")
  shown = wait_diags(buf, "diagnostics after restoring the }", n)
  ok(first_invalid_line(shown) == nil, "the file does not load after the fix")
  want, partial = expect(buf, n)
  wait_lenses(buf, want, partial, "lenses after the fix", lens_responses, true)

  -- 9. Every change refreshes the lenses, however it is made, with no
  -- Insert mode and no write: an edit through the API, :s, undo.
  local count = vim.api.nvim_buf_line_count(buf)
  since = lens_responses
  vim.api.nvim_buf_set_lines(buf, count, count, true, { '{"role":"user","content":"one more «line» 🙂"}' })
  wait_diags(buf, "diagnostics after appending a line", n)
  want, partial = expect(buf, n)
  wait_lenses(buf, want, partial, "lenses after appending a line through the API (change refresh)", since, false)
  count = count + 1
  since = lens_responses
  vim.cmd(count .. [[s/"role":"user"/"role":"system"/]])
  ok(vim.api.nvim_buf_get_lines(buf, count - 1, count, true)[1]:find('"system"', 1, true) ~= nil, ":s changed nothing")
  wait_diags(buf, "diagnostics after :" .. count .. "s/user/system/", n)
  want, partial = expect(buf, n)
  ok(partial, "the file still loads after :s made line %d a system message", count)
  wait_lenses(buf, want, partial, "lenses after :" .. count .. "s/user/system/ (change refresh)", since, false)
  since = lens_responses
  vim.cmd("silent undo")
  wait_diags(buf, "diagnostics after undo", n)
  want, partial = expect(buf, n)
  ok(not partial, "the file does not load after undo")
  wait_lenses(buf, want, partial, "lenses after undo (change refresh)", since, false)
  since = lens_responses
  vim.cmd("silent write")
  wait_lenses(buf, want, partial, "lenses after :write (BufWritePost refresh)", since, false)

  -- 10. Running the cutoff lens (vim.lsp.codelens.run on its line) asks for
  -- a budget and sets it. The prompts are stubbed: pick the ✂ lens, type n2.
  local n2 = n + units[mid - 1].chars
  local cut_line = nonnull(budget_json(buf, n).cutoff).firstKeptLine
  vim.api.nvim_win_set_cursor(0, { cut_line, 0 })
  local asked = false
  vim.ui.select = function(items, opts, on_choice)
    for i, item in ipairs(items) do
      if opts.format_item(item):sub(1, #"✂") == "✂" then
        return on_choice(item, i)
      end
    end
    on_choice(nil, nil)
  end
  vim.ui.input = function(_, on_confirm)
    asked = true
    on_confirm(tostring(n2))
  end
  since = lens_responses
  vim.lsp.codelens.run()
  ok(asked, "running the cutoff lens asked for no budget")
  ok(sessionls.config.budget == n2, "budget is %s after running the lens, want %d", tostring(sessionls.config.budget), n2)
  want, partial = expect(buf, n2)
  wait_lenses(buf, want, partial, "lenses after running the cutoff lens (budget " .. n2 .. ")", since, false)

  -- 10b. :SessionlsBudget off clears the budget: the Σ lens is back.
  since = lens_responses
  vim.cmd("SessionlsBudget off")
  ok(sessionls.config.budget == nil, "budget is %s after :SessionlsBudget off", tostring(sessionls.config.budget))
  want, partial = expect(buf, nil)
  wait_lenses(buf, want, partial, "lenses after :SessionlsBudget off", since, false)
  since = lens_responses
  vim.cmd("SessionlsBudget " .. n2)
  ok(sessionls.config.budget == n2, "budget is %s after :SessionlsBudget %d", tostring(sessionls.config.budget), n2)
  -- Settle before the server is stopped below: no publish may be in flight.
  wait_diags(buf, "diagnostics after :SessionlsBudget " .. n2 .. " again", n2)
  want, partial = expect(buf, n2)
  wait_lenses(buf, want, partial, "lenses after :SessionlsBudget " .. n2 .. " again", since, false)

  -- 10c. The lines the budget trims are faded: one hint tagged Unnecessary
  -- from line 1 to the line before the first kept line (Neovim 0.7 does
  -- not draw the tag; the plugin fades the range with an extmark there).
  local cut2 = nonnull(budget_json(buf, n2).cutoff).firstKeptLine
  ok(cut2 > 1, "budget %d trims nothing: the fade check would be vacuous", n2)
  if FADES then
    local faded = vim.tbl_filter(is_unnecessary, vim.diagnostic.get(buf))
    ok(#faded == 1, "%d diagnostics tagged Unnecessary, want 1:\n%s", #faded, vim.inspect(faded))
    local d = faded[1]
    ok(d.lnum == 0 and d.col == 0 and d.end_lnum == cut2 - 2 and d.end_col == #line_text(buf, cut2 - 1),
      "the faded hint spans %d:%d-%d:%d, want 0:0-%d:%d (0-based; the first kept line is %d)",
      d.lnum, d.col, d.end_lnum, d.end_col, cut2 - 2, #line_text(buf, cut2 - 1), cut2)
    ok(d.severity == vim.diagnostic.severity.HINT and d.code == "budget-cutoff", "faded diagnostic: %s", vim.inspect(d))
    ok(#vim.tbl_filter(function(x)
      return x.code == "budget-cutoff" and x.lnum == cut2 - 1
    end, vim.diagnostic.get(buf)) == 0, "a budget-cutoff diagnostic is still on the first kept line %d", cut2)
    if vim.fn.has("nvim-0.10") == 0 then
      local rows = sessionls.trimmed_rows(buf)
      ok(#rows == 1 and rows[1][1] == 0 and rows[1][2] == cut2 - 2,
        "the plugin fades rows %s, want { { 0, %d } } (lines 1-%d)", vim.inspect(rows), cut2 - 2, cut2 - 1)
      check_fade_drawn(buf, cut2)
    end
    log("ok   lines 1-%d (trimmed by budget %d) are one faded hint%s", cut2 - 1, n2,
      vim.fn.has("nvim-0.10") == 0 and ", drawn with SessionlsTrimmed" or "")
  else
    log("skip the fade check: this Neovim does not advertise the Unnecessary diagnostic tag")
  end

  -- 10d. A unit lens sets "budget to here": the unit's chars from newest,
  -- so that the cut lands on that unit. Pick a unit whose line holds only
  -- its own lens (not the first line, not the current cut).
  local cur = budget_json(buf, nil)
  local from_newest, acc = {}, 0
  for i = #cur.units, 1, -1 do
    acc = acc + cur.units[i].chars
    from_newest[i] = acc
  end
  local j
  for i = #cur.units - 1, 2, -1 do
    if cur.units[i].startLine ~= cut2 then
      j = i
      break
    end
  end
  ok(j ~= nil, "no unit lens to run: %s", vim.inspect(cur.units))
  local target = cur.units[j]
  vim.api.nvim_win_set_cursor(0, { target.startLine, 0 })
  asked = false
  since = lens_responses
  vim.lsp.codelens.run()
  ok(not asked, "running a unit lens asked for a budget")
  ok(sessionls.config.budget == from_newest[j], "budget is %s after running the lens of unit %d (line %d), want its %d from newest",
    tostring(sessionls.config.budget), j, target.startLine, from_newest[j])
  local bj2 = budget_json(buf, from_newest[j])
  ok(nonnull(bj2.cutoff) and bj2.cutoff.firstKeptLine == target.startLine,
    "budget %d cuts at %s, want the lens's line %d", from_newest[j], vim.inspect(bj2.cutoff), target.startLine)
  want, partial = expect(buf, from_newest[j])
  wait_lenses(buf, want, partial, "lenses after running the unit lens on line " .. target.startLine
    .. " (budget to here: " .. from_newest[j] .. ", the ✂ lens moves there)", since, false)
  wait_diags(buf, "diagnostics after the unit lens (budget " .. from_newest[j] .. ")", from_newest[j])

  -- 10e. A budget too small for the newest unit: the ✂ lens names the
  -- least budget that works, the newest unit's chars.
  since = lens_responses
  vim.cmd("SessionlsBudget 10")
  want, partial = expect(buf, 10)
  local newest = cur.units[#cur.units]
  local tail = "; the least budget that works is " .. thousands(newest.chars)
  local found_small = false
  for _, w in ipairs(want) do
    found_small = found_small or (w.title and w.line == newest.startLine and w.title:sub(-#tail) == tail)
  end
  ok(found_small, "no ✂ lens ending %q expected on line %d:\n%s", tail, newest.startLine, show(want))
  wait_lenses(buf, want, partial, "lenses with budget 10 (too small; the least that works is " .. newest.chars .. ")", since, false)
  wait_diags(buf, "diagnostics with budget 10", 10)
  since = lens_responses
  vim.cmd("SessionlsBudget " .. n2)
  wait_diags(buf, "diagnostics after :SessionlsBudget " .. n2 .. " once more", n2)
  want, partial = expect(buf, n2)
  wait_lenses(buf, want, partial, "lenses after :SessionlsBudget " .. n2 .. " once more", since, false)

  -- 10f. K shows the hover in the session buffer.
  local k = vim.fn.maparg("K", "n", false, true)
  ok(k.buffer == 1 and k.desc == "sessionls: hover", "K is not the plugin's hover mapping: %s", vim.inspect(k))
  log("ok   K maps to the hover")

  -- 11. A new server from setup{ budget, checks }: initializationOptions
  -- carry the budget and turn a check off.
  stop_clients()
  local n3 = n + 1
  disabled = { "orphan-tool-result" }
  local old = vim.diagnostic.get(buf)
  sessionls.setup({ cmd = { bin, "serve" }, budget = n3, checks = disabled })
  ok(vim.wait(WAIT, function()
    return #sessionls.clients(buf) == 1
  end, 20), "setup() did not attach the open jsonl buffer")
  ok(sessionls.clients(buf)[1].config.init_options.budget == n3, "init_options.budget is not %d", n3)
  shown = wait_diags(buf, "diagnostics from setup{ budget = " .. n3 .. ", checks = { \"orphan-tool-result\" } }", n3)
  for _, d in ipairs(shown) do
    ok(d.code ~= "orphan-tool-result", "orphan-tool-result is still reported")
  end
  ok(#old ~= #shown or not same(old, vim.diagnostic.get(buf)), "diagnostics did not change with the new setup")
  want, partial = expect(buf, n3)
  wait_lenses(buf, want, partial, "lenses from setup{ budget = " .. n3 .. " } (initializationOptions)", 0, false)

  -- 12. A second session file in the same directory shares the server.
  local second = tmp .. "/second.jsonl"
  vim.fn.writefile(vim.fn.readfile(file), second)
  vim.cmd("split " .. vim.fn.fnameescape(second))
  local buf2 = vim.api.nvim_get_current_buf()
  ok(buf2 ~= buf and vim.bo[buf2].filetype == "jsonl", "second buffer has filetype %q", vim.bo[buf2].filetype)
  wait_diags(buf2, "diagnostics of a second file", n3)
  ok(#sessionls.clients() == 1, "%d sessionls clients for two files in one directory, want 1", #sessionls.clients())
  ok(#sessionls.clients(buf2) == 1 and sessionls.clients(buf2)[1].id == sessionls.clients(buf)[1].id,
    "the second buffer is not attached to the first buffer's client")
  log("ok   a second file shares the client")

  -- 13. sessionls.toml beside the file sets the budget with no editor
  -- setting: the cutoff lands where the CLI's does for that budget; a
  -- change written from Neovim moves it.
  vim.cmd("close")
  stop_clients()
  local toml = tmp .. "/sessionls.toml"
  vim.fn.writefile({ "budget = " .. n }, toml)
  disabled = {}
  sessionls.setup({ cmd = { bin, "serve" } })
  ok(sessionls.config.budget == nil, "the editor has a budget: %s", tostring(sessionls.config.budget))
  ok(vim.wait(WAIT, function()
    return #sessionls.clients(buf) == 1
  end, 20), "setup() did not attach the open jsonl buffer")
  wait_diags(buf, "diagnostics under sessionls.toml budget = " .. n, n)
  want, partial = expect(buf, n)
  wait_lenses(buf, want, partial, "lenses under sessionls.toml budget = " .. n .. " (no editor setting)", 0, false)
  local cfg = sessionls_cli_config()
  ok(cfg == n, "sessionls config says budget %s, want %d", tostring(cfg), n)
  -- :SessionlsBudget names where the budget comes from.
  local said = sessionls.budget_text(buf)
  local want_said = string.format("budget %s (from %s:1:1)", thousands(n), vim.fn.resolve(toml))
  ok(said == want_said or said == string.format("budget %s (from %s:1:1)", thousands(n), toml),
    ":SessionlsBudget says %q, want %q", said, want_said)
  log("ok   :SessionlsBudget says %s", said)

  vim.cmd("split " .. vim.fn.fnameescape(toml))
  vim.api.nvim_buf_set_lines(0, 0, -1, true, { "budget = " .. n2 })
  since = lens_responses
  vim.cmd("silent write")
  vim.cmd("close")
  wait_diags(buf, "diagnostics after writing budget = " .. n2 .. " to sessionls.toml", n2)
  want, partial = expect(buf, n2)
  wait_lenses(buf, want, partial, "lenses after writing budget = " .. n2 .. " to sessionls.toml", since, false)

  -- 13b. Changed outside Neovim (0.7 cannot watch files: the server
  -- watches them itself), with no buffer of it open and no edit.
  since = lens_responses
  vim.fn.writefile({ "budget = " .. n }, toml)
  wait_diags(buf, "diagnostics after sessionls.toml got budget = " .. n .. " outside Neovim", n)
  want, partial = expect(buf, n)
  wait_lenses(buf, want, partial, "lenses after sessionls.toml got budget = " .. n .. " outside Neovim", since, true)

  -- 14. A quick fix: a trailing comma (a safe fix) in a new session file;
  -- the code action menu (vim.lsp.buf.code_action, its vim.ui.select
  -- stubbed to pick the quick fix as a person would) repairs it: the
  -- squiggle goes and the text equals what `sessionls check --fix` writes.
  local broken_text = {
    '{"role":"user","content":"Fix the «parser», please 🙏",}',
    '{"role":"assistant","content":"On it.","toolCalls":[]}',
  }
  local fixpath = tmp .. "/fixme.jsonl"
  vim.fn.writefile(broken_text, fixpath)
  local fixed_copy = tmp .. "/fixme-cli.jsonl"
  vim.fn.writefile(broken_text, fixed_copy)
  vim.fn.system({ bin, "check", "--fix", fixed_copy })
  local want_fixed = vim.fn.readfile(fixed_copy)
  ok(not same(want_fixed, broken_text), "sessionls check --fix changed nothing: %s", vim.inspect(want_fixed))
  vim.cmd("edit " .. vim.fn.fnameescape(fixpath))
  local fbuf = vim.api.nvim_get_current_buf()
  local fdiags = wait_diags(fbuf, "diagnostics of fixme.jsonl (a trailing comma)", n2)
  ok(first_invalid_line(fdiags) == 1, "fixme.jsonl: line 1 is not invalid")
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  local offered = {}
  vim.ui.select = function(items, opts, on_choice)
    for i, item in ipairs(items) do
      local action = item[2]
      table.insert(offered, (opts.format_item(item))) -- format_item returns gsub's two values
      if action.kind == "quickfix" then
        return on_choice(item, i)
      end
    end
    on_choice(nil, nil)
  end
  local notified = {}
  local orig_notify = vim.notify
  vim.notify = function(msg, ...)
    table.insert(notified, msg)
    return orig_notify(msg, ...)
  end
  vim.lsp.buf.code_action()
  local fixed_in_editor = vim.wait(WAIT, function()
    return same(vim.api.nvim_buf_get_lines(fbuf, 0, -1, true), want_fixed)
  end, 20)
  ok(fixed_in_editor, "after the quick fix the buffer is\n%s\nwant (check --fix)\n%s\noffered: %s\nnotified: %s",
    table.concat(vim.api.nvim_buf_get_lines(fbuf, 0, -1, true), "\n"), table.concat(want_fixed, "\n"), vim.inspect(offered), vim.inspect(notified))
  vim.notify = orig_notify
  log("ok   the quick fix (%s) makes the text `check --fix` writes", offered[#offered] or "?")
  local after = wait_diags(fbuf, "diagnostics after the quick fix (none expected)", n2)
  ok(first_invalid_line(after) == nil, "fixme.jsonl still has an invalid line after the quick fix")

  -- 14b. A byte order mark Neovim hides ('bomb'): the server reads the
  -- file's first bytes and reports what the runtime will say; the quick fix
  -- writes the file without it (and Neovim will not put it back).
  local bompath = tmp .. "/bom.jsonl"
  local bf = assert(io.open(bompath, "wb"))
  bf:write("\239\187\191" .. table.concat(broken_text, "\n"):gsub(",}", "}") .. "\n")
  bf:close()
  vim.cmd("edit " .. vim.fn.fnameescape(bompath))
  local bbuf = vim.api.nvim_get_current_buf()
  ok(vim.bo[bbuf].bomb, "Neovim did not read the BOM as 'bomb': the test proves nothing")
  ok(vim.wait(WAIT, function()
    for _, d in ipairs(vim.diagnostic.get(bbuf)) do
      if d.message:find("byte order mark", 1, true) and d.lnum == 0 then
        return true
      end
    end
    return false
  end, 20), "no diagnostic for the BOM Neovim hides: %s", vim.inspect(vim.diagnostic.get(bbuf)))
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.lsp.buf.code_action()
  ok(vim.wait(WAIT, function()
    local fh = io.open(bompath, "rb")
    local head = fh and fh:read(3) or ""
    if fh then
      fh:close()
    end
    return head ~= "\239\187\191" and not vim.bo[bbuf].bomb
  end, 20), "the quick fix left the BOM (bomb=%s)", tostring(vim.bo[bbuf].bomb))
  ok(vim.wait(WAIT, function()
    for _, d in ipairs(vim.diagnostic.get(bbuf)) do
      if d.message:find("byte order mark", 1, true) then
        return false
      end
    end
    return true
  end, 20), "the BOM diagnostic stayed after the fix")
  log("ok   a BOM Neovim hides is reported on line 1, and the quick fix writes the file without it")

  -- 15. setup{ tokens = true }: each unit lens (resolved by the server)
  -- adds its token count, equal to `sessionls budget --tokens`'s.
  stop_clients()
  sessionls.setup({ cmd = { bin, "serve" }, tokens = true })
  ok(vim.wait(WAIT, function()
    return #sessionls.clients(fbuf) == 1
  end, 20), "setup{ tokens = true } did not attach fixme.jsonl")
  local bt = cli({ "budget", "--tokens", "--isolated", "--max-chars", "1000000000", "--format", "json",
    buffer_to_file(fbuf, tmp .. "/tokens.jsonl") })
  ok(type(bt.units) == "table" and #bt.units > 0, "budget --tokens gave no units: %s", vim.inspect(bt))
  local want_tok = {}
  for _, u in ipairs(bt.units) do
    ok(type(u.tokens) == "number", "budget --tokens gave no tokens for unit at line %d", u.startLine)
    want_tok[u.startLine] = string.format("%s chars · ≈ %s tokens · ", thousands(u.chars), thousands(u.tokens))
  end
  local function tokens_shown()
    local got = {}
    for _, l in ipairs(lens_list(fbuf)) do
      local prefix = want_tok[l.line]
      if prefix and l.title:sub(1, #prefix) == prefix then
        got[l.line] = true
      end
    end
    return vim.tbl_count(got) == vim.tbl_count(want_tok)
  end
  refresh(fbuf)
  local shown = vim.wait(WAIT, tokens_shown, 20)
  ok(shown, "unit lenses with tokens differ.\nwant prefixes: %s\ngot: %s", vim.inspect(want_tok), show(lens_list(fbuf)))
  log("ok   setup{ tokens = true }: %d unit lenses show budget --tokens's counts", vim.tbl_count(want_tok))

  -- 15b. The budget lens and :SessionlsBudget add the tokens too: with no
  -- budget the file's (Σ), with one the kept units' (✂), as budget
  -- --tokens counts them (totalTokens, cutoff.keptTokens).
  local function budget_lens_shown(line, prefix, part)
    return vim.wait(WAIT, function()
      for _, l in ipairs(lens_list(fbuf)) do
        if l.line == line and l.title:sub(1, #prefix) == prefix and l.title:find(part, 1, true) then
          return true
        end
      end
      return false
    end, 20)
  end
  local status = sessionls.clients(fbuf)[1].request_sync("sessionls/status", { uri = vim.uri_from_bufnr(fbuf) }, 5000, fbuf)
  if type(status.result.budget) ~= "number" then
    local part = string.format("Σ %s chars · ≈ %s tokens · ", thousands(bt.totalChars), thousands(bt.totalTokens))
    ok(budget_lens_shown(1, part, part), "no Σ lens %q on line 1: %s", part, show(lens_list(fbuf)))
    local said = sessionls.budget_text(fbuf)
    local want = string.format("no budget (≈ %s tokens, o200k_base): ", thousands(bt.totalTokens))
    ok(said:sub(1, #want) == want, ":SessionlsBudget says %q, want %q…", said, want)
    log("ok   setup{ tokens = true }: the Σ lens and :SessionlsBudget show the file's tokens (%s)", said)
  end
  -- A budget that keeps the newer half of the units.
  local budget = 0
  for i = #bt.units, math.floor(#bt.units / 2) + 1, -1 do
    budget = budget + bt.units[i].chars
  end
  local done = false
  sessionls.set_budget(budget, function()
    done = true
  end)
  ok(vim.wait(WAIT, function()
    return done
  end, 20), "set_budget(%d) did not answer", budget)
  local bc = cli({ "budget", "--tokens", "--isolated", "--max-chars", tostring(budget), "--format", "json",
    buffer_to_file(fbuf, tmp .. "/tokens.jsonl") })
  local c = bc.cutoff
  ok(type(c) == "table" and type(c.keptTokens) == "number", "budget --tokens --max-chars %d gave no kept tokens: %s", budget, vim.inspect(bc))
  ok(c.keptTokens < bc.totalTokens, "budget %d trims nothing: %s", budget, vim.inspect(c))
  local prefix = string.format("✂ budget %s · keeps ", thousands(budget))
  local part = string.format(" · %s chars · ≈ %s tokens · ", thousands(c.keptChars), thousands(c.keptTokens))
  refresh(fbuf)
  ok(budget_lens_shown(c.firstKeptLine, prefix, part), "no ✂ lens %q…%q on line %d: %s", prefix, part, c.firstKeptLine, show(lens_list(fbuf)))
  local said = sessionls.budget_text(fbuf)
  local want = string.format("budget %s (from editor setting sessionls.budget) · keeps ≈ %s of ≈ %s tokens (o200k_base)",
    thousands(budget), thousands(c.keptTokens), thousands(bc.totalTokens))
  ok(said == want, ":SessionlsBudget says %q, want %q", said, want)
  log("ok   setup{ tokens = true }: the ✂ lens and :SessionlsBudget show budget --tokens's kept tokens (%s)", said)
end

-- :help sessionls works from the shipped tags, and the shipped tags are
-- what :helptags makes of the shipped doc.
local function check_help()
  local doc = plugin .. "/doc"
  local copy = tmp .. "/doc"
  vim.fn.mkdir(copy, "p")
  vim.fn.writefile(vim.fn.readfile(doc .. "/sessionls.txt", "b"), copy .. "/sessionls.txt", "b")
  vim.cmd("helptags " .. vim.fn.fnameescape(copy))
  local want = vim.fn.readfile(copy .. "/tags")
  local got = vim.fn.filereadable(doc .. "/tags") == 1 and vim.fn.readfile(doc .. "/tags") or {}
  ok(same(got, want), "editors/nvim/doc/tags is stale: regenerate it with\n  nvim --headless -u NONE -c 'helptags editors/nvim/doc' -c q")
  for _, topic in ipairs({ "sessionls", ":SessionlsBudget", "sessionls-options" }) do
    local okh, e = pcall(vim.cmd, "help " .. topic)
    ok(okh, ":help %s failed: %s", topic, tostring(e))
    ok(vim.fn.expand("%:t") == "sessionls.txt", ":help %s opened %s", topic, vim.fn.expand("%:t"))
    vim.cmd("helpclose")
  end
  log("ok   :help sessionls (shipped tags up to date)")
end

-- :SessionlsMap writes the buffer's context map and opens it (the opener
-- stubbed): the page the server makes for the buffer's text, whose units,
-- total and first kept line are those of `sessionls budget --format json`
-- on that text; an unsaved edit is in the next page; with no server, the
-- saved file is mapped by running `sessionls map` (an unsaved buffer is
-- refused, not mapped from stale bytes). Stops the servers: runs last.
local function check_map()
  local sessionls = require("sessionls")
  local path = tmp .. "/map.jsonl"
  vim.fn.writefile(vim.fn.readfile(plugin .. "/../../testdata/sessions/units.jsonl", "b"), path, "b")
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  ok(vim.wait(WAIT, function()
    return #sessionls.clients(buf) == 1
  end, 20), "no sessionls client attached to map.jsonl")
  local answered = false
  sessionls.set_budget(600, function()
    answered = true
  end)
  ok(vim.wait(WAIT, function()
    return answered
  end, 20), "setBudget 600 got no answer")

  local opened, refused = {}, {}
  sessionls.config.map_open = function(p)
    table.insert(opened, p)
  end
  -- note_refusal is :SessionlsMap's callback: it notes why no page came.
  local function note_refusal(p, why)
    if not p then
      table.insert(refused, why)
    end
  end
  local function run_map(what)
    local before = #opened
    sessionls.map(buf, note_refusal)
    ok(vim.wait(WAIT, function()
      return #opened > before
    end, 20), "%s: :SessionlsMap opened no page (refused: %s)", what, vim.inspect(refused))
    ok(opened[#opened] == sessionls.map_path(buf), "%s: opened %s, want %s", what, opened[#opened], sessionls.map_path(buf))
    return opened[#opened]
  end
  local function check_page(p, what)
    local bj = budget_json(buf, 600)
    ok(type(bj.cutoff) == "table", "%s: budget 600 does not cut map.jsonl: %s", what, vim.inspect(bj))
    local html = table.concat(vim.fn.readfile(p, "b"), "\n")
    local units = tonumber(html:match('<span id="units" hidden data%-units="(%d+)"'))
    local total = tonumber(html:match('id="totals"[^>]- data%-total%-chars="(%d+)"'))
    local cut = tonumber(html:match('<div id="cutoff" class="[^"]*" data%-first%-kept%-line="(%d+)"'))
    ok(units == #bj.units, "%s: the page has %s units, budget --format json %d", what, tostring(units), #bj.units)
    ok(total == bj.totalChars, "%s: the page totals %s chars, budget --format json %d", what, tostring(total), bj.totalChars)
    ok(cut == bj.cutoff.firstKeptLine, "%s: the page keeps from line %s, budget --format json from line %d",
      what, tostring(cut), bj.cutoff.firstKeptLine)
    return total
  end

  vim.cmd("SessionlsMap")
  ok(vim.wait(WAIT, function()
    return #opened == 1
  end, 20), ":SessionlsMap opened no page")
  local total0 = check_page(opened[1], ":SessionlsMap")

  -- An unsaved edit: the server's page is the buffer's text.
  local line1 = '{"role":"user","content":"rewritten in the buffer, not saved"}'
  set_text(buf, 1, 0, #vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1], line1)
  local total1 = check_page(run_map("after an unsaved edit"), "after an unsaved edit")
  ok(total1 ~= total0, "the edit did not change the total (%d): a vacuous check", total1)

  -- A server without sessionls/contextMap (MethodNotFound): the CLI is
  -- asked instead, which refuses the unsaved buffer.
  local client = sessionls.clients(buf)[1]
  local orig = client.request
  client.request = function(...)
    local args = { ... }
    local m = vim.fn.has("nvim-0.11") == 1 and 2 or 1 -- client:request(...) on 0.11+
    if args[m] == "sessionls/contextMap" then
      args[m + 2]({ code = -32601, message = "method not found" }, nil)
      return true, 0
    end
    return orig(...)
  end
  local before = #refused
  sessionls.map(buf, note_refusal)
  client.request = orig
  ok(#refused == before + 1 and refused[#refused]:find("unsaved changes", 1, true),
    "a server without sessionls/contextMap: :SessionlsMap did not fall back to the CLI (refused %s)", vim.inspect(refused))
  refused = {}

  -- No server: an unsaved buffer is refused; saved, the CLI maps it.
  for _, c in ipairs(sessionls.clients()) do
    vim.lsp.stop_client(c.id, true)
  end
  ok(vim.wait(WAIT, function()
    return #sessionls.clients(buf) == 0
  end, 20), "the sessionls clients did not stop")
  local n = #opened
  sessionls.map(buf, note_refusal)
  ok(#opened == n and #refused == 1 and refused[1]:find("unsaved changes", 1, true),
    "without a server, an unsaved buffer was not refused: opened %d, refused %s", #opened - n, vim.inspect(refused))
  vim.cmd("silent write")
  check_page(run_map("no server, saved: sessionls map FILE"), "no server, saved: sessionls map FILE")

  -- No opener (no map_open, no vim.ui.open, nothing on PATH): the page is
  -- written and the message gives its path. The CLI is found by its full
  -- path (config.cmd), so an empty PATH hides only the openers.
  local said = {}
  local saved = { notify = vim.notify, path = vim.env.PATH, ui_open = vim.ui.open, open = sessionls.config.map_open,
    cmd = sessionls.config.cmd }
  vim.notify = function(msg)
    table.insert(said, msg)
  end
  sessionls.config.map_open, vim.ui.open, vim.env.PATH = nil, nil, ""
  sessionls.config.cmd = { bin, "serve" }
  local written
  sessionls.map(buf, function(p)
    written = p
  end)
  ok(vim.wait(WAIT, function()
    return written ~= nil
  end, 20), "with no opener, no page was written")
  vim.notify, vim.env.PATH, vim.ui.open, sessionls.config.map_open, sessionls.config.cmd =
    saved.notify, saved.path, saved.ui_open, saved.open, saved.cmd
  local msg = said[#said] or ""
  ok(msg:find("written to " .. written, 1, true) and msg:find("no browser opener", 1, true),
    "with no opener, :SessionlsMap said %q", msg)
  log("ok   :SessionlsMap: pages from the server (as opened, after an edit) and from sessionls map (no server) agree with budget --format json; with no opener the path is given")
end

-- open_copy copies the corpus file src to path (creating its directory),
-- edits it and waits for the sessionls client to attach; it returns the
-- buffer and the client.
local function open_copy(src, path)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  vim.fn.writefile(vim.fn.readfile(src, "b"), path, "b")
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  ok(vim.wait(WAIT, function()
    return #sessionls.clients(buf) == 1
  end, 20), "%s: no sessionls client attached", path)
  return buf, sessionls.clients(buf)[1]
end

-- request_sync is client's request_sync(method, params) for buf in the
-- spelling of this Neovim (a method call from 0.11 on), and its result.
local function request_sync(client, buf, method, params)
  local resp
  if vim.fn.has("nvim-0.11") == 1 then
    resp = client:request_sync(method, params, 5000, buf)
  else
    resp = client.request_sync(method, params, 5000, buf)
  end
  return resp and resp.result
end

-- each_dialect_file opens a copy of a Claude Code and a Codex CLI corpus
-- file (testdata/dialects/claude-code/claude_src and codex/codex_src)
-- where those tools keep them (~/.claude/projects/NAME/s.jsonl,
-- ~/.codex/sessions/2026/12/01/rollout-NAME.jsonl), runs fn(c, buf,
-- client, since) on each (c: dialect, src, path; since: the lens responses
-- before it opened), and closes it.
local function each_dialect_file(claude_src, codex_src, name, fn)
  local corpus = plugin .. "/../../testdata/dialects/"
  local cases = {
    { dialect = "claude-code", src = corpus .. "claude-code/" .. claude_src, path = tmp .. "/.claude/projects/" .. name .. "/s.jsonl" },
    { dialect = "codex", src = corpus .. "codex/" .. codex_src, path = tmp .. "/sessions/2026/12/01/rollout-" .. name .. ".jsonl" },
  }
  for _, c in ipairs(cases) do
    local since = lens_responses
    local buf, client = open_copy(c.src, c.path)
    fn(c, buf, client, since)
    vim.cmd("bwipeout! " .. buf)
  end
end

-- wait_lens waits until a lens response newer than since shows title on
-- line (1-based) of buf, and fails the check (naming path) when none does.
local function wait_lens(buf, since, path, line, title)
  local function has_lens()
    for _, l in ipairs(lens_list(buf)) do
      if l.line == line and l.title == title then
        return true
      end
    end
    return false
  end
  ok(vim.wait(WAIT, function()
    return lens_responses > since and has_lens()
  end, 20), "%s: no lens %q on line %d; lenses:\n%s", path, title, line, show(lens_list(buf)))
end

-- A Claude Code and a Codex CLI transcript where those tools keep them
-- (~/.claude/projects/<p>/<s>.jsonl, ~/.codex/sessions/YYYY/MM/DD/
-- rollout-*.jsonl), with no setup beyond what .jsonl files get (issue 21):
-- each is read in its dialect (sessionls/status), its diagnostics equal
-- `sessionls check --format json` of the same file, a usage lens shows the
-- last turn's context as `sessionls budget --format json` reports it, and
-- the unsafe quick fix for the tool call without a result (picked from the
-- code action menu) makes the text `check --fix --unsafe-fixes` writes.
local function check_dialects()
  each_dialect_file("missing-result-tail.jsonl", "missing-output.jsonl", "damaged", function(c, buf, client, since)
    local params = { uri = vim.uri_from_bufnr(buf) }
    local st = request_sync(client, buf, "sessionls/status", params) or {}
    ok(st.dialect == c.dialect, "%s is read as %s (%s), want %s", c.path, tostring(st.dialect), tostring(st.dialectWhy), c.dialect)

    -- Diagnostics: check --format json of the file itself, with the budget
    -- the server applies to it.
    local budget = type(st.budget) == "number" and st.budget or nil
    local findings = check_file_json(c.path, budget)
    local want = sorted_diags(expected_diags(buf, findings))
    local missing
    for _, f in ipairs(findings) do
      if f.code == "missing-tool-result" then
        missing = missing or f.line
      end
    end
    ok(missing ~= nil, "%s: check reports no missing-tool-result: the quick fix check would prove nothing", c.path)
    ok(vim.wait(WAIT, function()
      return same(sorted_diags(diag_list(buf)), want)
    end, 20), "%s: diagnostics differ.\nwant (from sessionls check):\n%s\ngot:\n%s", c.path,
      show_diags(want), show_diags(sorted_diags(diag_list(buf))))
    log("ok   %s (%s): %d diagnostics equal sessionls check's", c.path:sub(#tmp + 2), c.dialect, #want)

    -- The usage lens of the last turn: budget --format json's context.
    local bj = cli({ "budget", "--format", "json", c.path })
    local ctx = nonnull(bj.context)
    ok(type(ctx) == "table" and nonnull(ctx.window), "%s: budget --format json has no context with a window: %s", c.path, vim.inspect(bj.context))
    local title = string.format("context %s / %s tokens · %d%% · +%s output",
      thousands(ctx.tokens), thousands(ctx.window), ctx.fill, thousands(ctx.outputTokens))
    wait_lens(buf, since, c.path, ctx.line, title)
    log("ok   %s: usage lens on line %d: %s", c.path:sub(#tmp + 2), ctx.line, title)

    -- The unsafe quick fix on the call without a result.
    local fixed_copy = tmp .. "/dialect-fixed.jsonl"
    vim.fn.writefile(vim.fn.readfile(c.path, "b"), fixed_copy, "b")
    vim.fn.system({ bin, "check", "--fix", "--unsafe-fixes", fixed_copy })
    local fixed = vim.fn.readfile(fixed_copy)
    local before = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
    vim.api.nvim_win_set_cursor(0, { missing, 0 })
    local picked
    local saved_select = vim.ui.select
    vim.ui.select = function(items, opts, on_choice)
      for i, item in ipairs(items) do
        local action = item[2] or item.action
        if action.kind == "quickfix" and action.diagnostics and action.diagnostics[1]
          and action.diagnostics[1].code == "missing-tool-result" then
          picked = action.title
          return on_choice(item, i)
        end
      end
      on_choice(nil, nil)
    end
    vim.lsp.buf.code_action() -- asynchronous: the menu opens when the actions arrive
    local applied = vim.wait(WAIT, function()
      return vim.api.nvim_buf_line_count(buf) == #before + 1
    end, 20)
    vim.ui.select = saved_select
    ok(applied, "%s: the quick fix (%s) added no line", c.path, tostring(picked))
    ok(picked ~= nil, "%s: the menu offered no quick fix for missing-tool-result", c.path)
    local after = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
    -- What the fix adds is a line of `check --fix --unsafe-fixes`'s text,
    -- after the call's own lines; every other line is kept byte for byte.
    local added
    for i = 1, #after do
      if after[i] ~= before[i] then
        added = i
        break
      end
    end
    ok(added ~= nil and added > missing and vim.tbl_contains(fixed, after[added]),
      "%s: the quick fix added line %s %q, not a line of check --fix --unsafe-fixes", c.path, tostring(added), tostring(after[added or 1]))
    ok(same(vim.list_slice(after, added + 1), vim.list_slice(before, added)), "%s: the quick fix changed more than one line", c.path)
    if #fixed == #before + 1 then -- the only fix: the texts are equal
      ok(same(after, fixed), "%s: after the quick fix the buffer is not check --fix --unsafe-fixes's text", c.path)
    end
    ok(vim.wait(WAIT, function()
      for _, d in ipairs(vim.diagnostic.get(buf)) do
        if d.lnum + 1 == missing and d.code == "missing-tool-result" then
          return false
        end
      end
      return true
    end, 20), "%s: missing-tool-result on line %d is still reported after its quick fix", c.path, missing)
    log("ok   %s: the unsafe quick fix (%s) adds the result check --fix --unsafe-fixes adds%s", c.path:sub(#tmp + 2),
      tostring(picked), #fixed == #before + 1 and " (the texts are equal)" or "")
  end)
end

-- The last compaction of a compacted Claude Code and Codex CLI transcript:
-- its lens says what a resume sends (the history from that compaction on)
-- exactly as `sessionls budget --format json` of the same file gives it
-- (resume, after compactions), in the words of `sessionls budget`'s text,
-- and sessionls/status gives the same figures.
local function check_resume_lens()
  each_dialect_file("clean.jsonl", "clean.jsonl", "resumed", function(c, buf, client, since)
    local bj = cli({ "budget", "--format", "json", c.path })
    local comps, rs = nonnull(bj.compactions), nonnull(bj.resume)
    ok(type(comps) == "table" and #comps > 0, "%s: budget --format json lists no compaction: %s", c.path, vim.inspect(bj))
    ok(type(rs) == "table", "%s: budget --format json says nothing of what a resume sends (no \"resume\" after \"compactions\")", c.path)
    local last = comps[#comps]
    local what = last.replaced > 0 and plural(last.replaced, "message") or "the history before it"
    local lines = rs.startLine == rs.endLine and ("line " .. rs.startLine)
      or string.format("lines %d–%d", rs.startLine, rs.endLine)
    local resume = string.format("a resume sends %s: %s, %s chars", lines, plural(rs.messages, "message"), thousands(rs.chars))
    local title = string.format("compaction: %s replaced by a %s-char summary · %s", what, thousands(last.chars), resume)
    wait_lens(buf, since, c.path, last.line, title)

    -- budget's text says it in the same words.
    local text = vim.fn.system({ bin, "budget", c.path })
    ok(text:find("\n" .. resume .. "\n", 1, true) ~= nil, "%s: budget's text lacks the line %q:\n%s", c.path, resume, text)

    local st = request_sync(client, buf, "sessionls/status", { uri = vim.uri_from_bufnr(buf) }) or {}
    ok(st.dialect == c.dialect, "%s is read as %s, want %s", c.path, tostring(st.dialect), c.dialect)
    ok(st.resumeStartLine == rs.startLine and st.resumeEndLine == rs.endLine and st.resumeMessages == rs.messages
      and st.resumeChars == rs.chars, "%s: sessionls/status says a resume sends %s-%s, %s messages, %s chars; budget --format json %d-%d, %d, %d",
      c.path, tostring(st.resumeStartLine), tostring(st.resumeEndLine), tostring(st.resumeMessages), tostring(st.resumeChars),
      rs.startLine, rs.endLine, rs.messages, rs.chars)
    log("ok   %s (%s): the last compaction's lens on line %d: %s", c.path:sub(#tmp + 2), c.dialect, last.line, title)
  end)
end

-- With setup{ tokens = true }, the hover of a Claude Code and a Codex CLI
-- message line gives its tokens as a seed message's does ("≈ N tokens ·
-- R chars per token (o200k_base)"): per unit, the hovered lines' tokens
-- add up to the unit's tokens in `sessionls budget --tokens --format
-- json` of the same file, and a one-message unit's hover shows exactly its
-- count.
local function check_dialect_hover_tokens()
  stop_clients()
  sessionls.setup({ cmd = { bin, "serve" }, tokens = true })
  each_dialect_file("clean.jsonl", "clean.jsonl", "hovered", function(c, buf, client)
    local function request(method, params)
      return request_sync(client, buf, method, params)
    end
    local uri = vim.uri_from_bufnr(buf)
    local st = request("sessionls/status", { uri = uri }) or {}
    ok(st.dialect == c.dialect, "%s is read as %s, want %s", c.path, tostring(st.dialect), c.dialect)
    local bt = cli({ "budget", "--tokens", "--format", "json", c.path })
    ok(type(bt.units) == "table" and #bt.units > 1, "%s: budget --tokens gave too few units: %s", c.path, vim.inspect(bt))
    local hovered, exact = 0, 0
    for _, u in ipairs(bt.units) do
      ok(type(u.tokens) == "number" and u.tokens > 0, "%s: budget --tokens gave no tokens for the unit at line %d", c.path, u.startLine)
      local sum = 0
      for line = u.startLine, u.endLine do
        local h = request("textDocument/hover", { textDocument = { uri = uri }, position = { line = line - 1, character = 0 } })
        local value = h and h.contents and (h.contents.value or h.contents) or ""
        if type(value) ~= "string" then
          value = vim.inspect(value)
        end
        local n = value:match(" chars · ≈ ([%d,]+) tokens · [%d.]+ chars per token %(o200k_base%)")
        if n then
          hovered = hovered + 1
          sum = sum + tonumber((n:gsub(",", "")))
          if u.messages == 1 and u.startLine == u.endLine then
            ok(n == thousands(u.tokens), "%s:%d: the hover says ≈ %s tokens, budget --tokens %s: %s", c.path, line, n, thousands(u.tokens), value)
            exact = exact + 1
          end
        end
      end
      ok(sum == u.tokens, "%s: unit %d-%d: the hovers' tokens add up to %d, budget --tokens says %d", c.path, u.startLine, u.endLine, sum, u.tokens)
    end
    ok(exact > 0, "%s: no one-message unit: the exact check proved nothing", c.path)
    log("ok   %s (%s): %d message lines hovered with tokens; %d units' tokens equal budget --tokens's (%d total, %d one-message units exactly)",
      c.path:sub(#tmp + 2), c.dialect, hovered, #bt.units, bt.totalTokens, exact)
  end)
end

local status, err = xpcall(function()
  check_help()
  run()
  check_fix_all()
  check_deep_fade()
  check_dialects()
  check_resume_lens()
  check_map()
  check_dialect_hover_tokens()
end, debug.traceback)
if status then
  log("ALL OK: %d checks on nvim %d.%d.%d", checks, vim.version().major, vim.version().minor, vim.version().patch)
  vim.cmd("qall!")
else
  log("ERROR after %d checks: %s", checks, tostring(err))
  vim.cmd("cquit 1")
end


-- castls for Neovim: starts the castls language server for the languages
-- it chunks, and shows the code it ranks as context for the cursor.
-- Works on Neovim 0.7 (vim.lsp.start_client + buf_attach_client) and on
-- 0.10+ (vim.lsp.start). See :help castls.

local M = {}

local api = vim.api
local uv = vim.loop

M.config = {
  cmd = { 'castls', 'serve' },
  -- Passed as initializationOptions and answered to workspace/configuration
  -- (section "castls"): maxChunkSize, budgetTokens, exclude, maxFileSize,
  -- logLevel, dbPath.
  settings = {},
  filetypes = { 'python', 'typescript', 'typescriptreact', 'javascript',
    'javascriptreact', 'sh', 'bash', 'markdown', 'go', 'rust', 'java', 'c',
    'cpp' },
  -- 'float' (a floating window) or 'split' (a scratch buffer in a split).
  view = 'float',
  -- Files that make their directory a project's root when it is in no
  -- git repository (those of the CLI and of the other clients).
  root_markers = { 'pyproject.toml', 'setup.py', 'setup.cfg', 'package.json',
    'tsconfig.json', 'deno.json', 'go.mod', 'Cargo.toml', 'pom.xml',
    'build.gradle', 'build.gradle.kts', 'CMakeLists.txt',
    'compile_commands.json', 'meson.build', 'Gemfile', 'composer.json',
    'Makefile' },
}

-- bufnr -> client id, for the buffers this plugin attached.
local attached = {}
-- bufnr -> true for every buffer attach() was asked to serve: the ones
-- :CastlsRestart attaches again once their server is gone.
local wanted = {}
-- root directory (NO_ROOT for single files) -> client id, on Neovim
-- releases without vim.lsp.start.
local by_root = {}
local NO_ROOT = ''
-- client id -> { title, message, percentage } while it indexes.
local progress = {}
-- client id -> true for the clients :CastlsRestart stops.
local stopping = {}

local has_start = vim.lsp.start ~= nil
local method_calls = vim.fn.has('nvim-0.11') == 1

-- ------------------------------------------------------------------------
-- Starting the server
-- ------------------------------------------------------------------------

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local function real(path)
  return uv.fs_realpath(path) or path
end

-- Never a root: / and the home directory (a dotfiles repository would
-- have castls index all of home).
local function too_wide(dir)
  local home = uv.os_homedir()
  return dir == '/' or (home ~= nil and home ~= '' and real(home) == dir)
end

-- The nearest directory at or above dir for which found(d) holds.
local function nearest(dir, found)
  local d = dir
  while d and d ~= '' do
    if found(d) then
      return d
    end
    local parent = vim.fn.fnamemodify(d, ':h')
    if parent == d then
      return nil
    end
    d = parent
  end
  return nil
end

local function has_marker(d)
  for _, m in ipairs(M.config.root_markers) do
    if exists(d .. '/' .. m) then
      return true
    end
  end
  return false
end

-- The workspace root of a file: the directory holding .git above it,
-- else the nearest holding a project file (root_markers); never / or
-- the home directory. The second value says which: 'git', 'marker', or
-- 'file' with no root (nil) for a file in no project, which castls
-- serves alone, nothing indexed.
function M.root_dir(fname)
  local dir = real(vim.fn.fnamemodify(fname, ':p:h'))
  local git = nearest(dir, function(d) return exists(d .. '/.git') end)
  if git and not too_wide(git) then
    return git, 'git'
  end
  local marked = nearest(dir, has_marker)
  if marked and not too_wide(marked) then
    return marked, 'marker'
  end
  return nil, 'file'
end

local function stopped(client)
  if method_calls then
    return client:is_stopped()
  end
  return client.is_stopped()
end

local function client_of(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf()
    or bufnr
  local id = attached[bufnr]
  local client = id and vim.lsp.get_client_by_id(id)
  if client and not stopped(client) then
    return client, bufnr
  end
  return nil, bufnr
end

local function request(client, method, params, handler, bufnr)
  if method_calls then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function notify(client, method, params)
  if method_calls then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

local function echo(msg, hl)
  api.nvim_echo({ { msg, hl } }, true, {})
end

-- A change a statusline shows: redraw them and tell other plugins.
local function progress_changed()
  pcall(api.nvim_exec_autocmds, 'User',
    { pattern = 'CastlsProgress', modeline = false })
  pcall(vim.cmd, 'redrawstatus!')
end

-- $/progress from castls (it sends it for indexing when the client
-- declares window.workDoneProgress, which Neovim does): kept for
-- statusline(), then handed to Neovim's own handler.
local function on_progress(err, result, ctx, config)
  local value = type(result) == 'table' and result.value
  local id = ctx and ctx.client_id
  if type(value) == 'table' and id then
    if value.kind == 'end' then
      progress[id] = nil
    elseif value.kind == 'begin' or value.kind == 'report' then
      local last = progress[id] or {}
      progress[id] = {
        title = value.title or last.title,
        message = value.message or last.message,
        percentage = value.percentage or last.percentage,
      }
    end
    progress_changed()
  end
  local default = vim.lsp.handlers['$/progress']
  if default then
    return default(err, result, ctx, config)
  end
end

-- A client for root, or with no root (rootUri and workspaceFolders null:
-- castls then indexes nothing and serves each file from its buffer).
local function client_config(root)
  local settings = M.config.settings
  return {
    name = 'castls',
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = root and {
      { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') },
    } or nil,
    init_options = settings,
    settings = { castls = settings },
    on_init = function(client)
      -- Neovim 0.7 sends no settings after initialize; castls also takes
      -- them from initializationOptions, so only send non-empty ones.
      if next(settings) ~= nil then
        notify(client, 'workspace/didChangeConfiguration',
          { settings = { castls = settings } })
      end
    end,
    handlers = { ['$/progress'] = on_progress },
    on_exit = function(code, signal, id)
      for k, v in pairs(by_root) do
        if v == id then by_root[k] = nil end
      end
      for k, v in pairs(attached) do
        if v == id then attached[k] = nil end
      end
      progress[id] = nil
      local asked = stopping[id]
      stopping[id] = nil
      vim.schedule(function()
        progress_changed()
        if not asked then
          echo(('castls stopped (exit code %d%s) for %s; :CastlsRestart ' ..
            'starts it again'):format(code or -1,
              (signal or 0) ~= 0 and (', signal ' .. signal) or '',
              root or 'files in no project'),
            'WarningMsg')
        end
      end)
    end,
  }
end

-- Starts castls for the buffer's root (or reuses the client already
-- running there) and attaches the buffer. Files in no project share one
-- client with no root. Returns the client id.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  local fname = api.nvim_buf_get_name(bufnr)
  if fname == '' then
    return nil
  end
  local root = M.root_dir(fname)
  local id
  wanted[bufnr] = true
  if has_start then
    id = vim.lsp.start(client_config(root), {
      bufnr = bufnr,
      -- Not a client :CastlsRestart is stopping.
      reuse_client = function(client, config)
        return client.name == config.name and not stopping[client.id] and
          not stopped(client) and client.config.root_dir == config.root_dir
      end,
    })
  else
    id = by_root[root or NO_ROOT]
    local client = id and vim.lsp.get_client_by_id(id)
    if not client or stopped(client) then
      id = vim.lsp.start_client(client_config(root))
      by_root[root or NO_ROOT] = id
    end
    if id then
      vim.lsp.buf_attach_client(bufnr, id)
    end
  end
  attached[bufnr] = id
  return id
end

-- ------------------------------------------------------------------------
-- The API, for completion and AI plugins
-- ------------------------------------------------------------------------

local function position_params(client, bufnr, pos)
  local enc = client.offset_encoding or 'utf-16'
  if not pos then
    local win = vim.fn.bufwinid(bufnr)
    if win == -1 then
      win = 0
    end
    pos = api.nvim_win_get_cursor(win)
  end
  local row, col = pos[1] - 1, pos[2]
  return {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = {
      line = row,
      character = vim.lsp.util.character_offset(bufnr, row, col, enc),
    },
  }
end

local READY_TIMEOUT_MS = 10000

-- Runs fn(client, bufnr) once the buffer's castls client is initialized
-- (a request sent earlier would reach the server before the buffer's
-- didOpen). Calls callback(err) instead when there is no client, or it
-- does not come up. Returns false when no client is attached.
local function when_ready(bufnr, callback, fn)
  local client
  client, bufnr = client_of(bufnr)
  if not client then
    callback('castls is not attached to this buffer', nil)
    return false
  end
  local waited = 0
  local function try()
    if stopped(client) then
      callback('castls stopped', nil)
    elseif client.initialized then
      fn(client, bufnr)
    elseif waited >= READY_TIMEOUT_MS then
      callback('castls did not start in time', nil)
    else
      waited = waited + 50
      vim.defer_fn(try, 50)
    end
  end
  try()
  return true
end

local function budget_params(params, opts)
  opts = opts or {}
  if opts.budget then
    params.budget = { tokens = opts.budget }
  end
  if opts.limit then
    params.limit = opts.limit
  end
  return params
end

--- Asks castls for the context at a position.
--- bufnr: a buffer castls is attached to (0: the current one).
--- pos: {row, col} as nvim_win_get_cursor gives it (1-based row, 0-based
---   byte column), or nil for the cursor in the buffer's window.
--- opts: {budget = tokens, limit = items}, both optional.
--- callback(err, result): result = {items = {{uri, range, language, kind,
---   symbol, parents, score, signals, why, clipped?, text}, ...},
---   budget = {limit, used},
---   noContext, elapsedMs}. Returns false when no castls client is attached.
function M.context(bufnr, pos, opts, callback)
  return when_ready(bufnr, callback, function(client, b)
    local params = budget_params(position_params(client, b, pos), opts)
    request(client, 'castls/context', params, function(err, result)
      callback(err and err.message or nil, result)
    end, b)
  end)
end

--- The indexed chunks that best match a query; callback as for context.
function M.search(query, opts, callback, bufnr)
  return when_ready(bufnr, callback, function(client, b)
    request(client, 'castls/search', budget_params({ query = query }, opts),
      function(err, result)
        callback(err and err.message or nil, result)
      end, b)
  end)
end

--- The server's castls/status reply: callback(err, status).
function M.status(callback, bufnr)
  return when_ready(bufnr, callback, function(client, b)
    request(client, 'castls/status', {}, function(err, result)
      callback(err and err.message or nil, result)
    end, b)
  end)
end

-- ------------------------------------------------------------------------
-- Text
-- ------------------------------------------------------------------------

local function relpath(uri, root)
  local path = vim.uri_to_fname(uri)
  if root and path:sub(1, #root + 1) == root .. '/' then
    return path:sub(#root + 2)
  end
  return vim.fn.fnamemodify(path, ':~:.')
end

-- "3-12": 1-based, inclusive lines of a whole-line range.
local function lines_of(range)
  local first = range.start.line + 1
  local last = range['end'].character == 0 and range['end'].line
    or range['end'].line + 1
  if last <= first then
    return tostring(first)
  end
  return first .. '-' .. last
end

-- The names of a list the server sends comma-separated ("a, b"); older
-- servers separated them with spaces.
local function names_of(list)
  local names = {}
  for n in (list or ''):gmatch('[^,%s]+') do
    table.insert(names, n)
  end
  return names
end

--- Why the server ranked an item: its own words (item.why). A server
--- older than `why` gets a few words from the signals.
function M.why(item)
  if type(item.why) == 'string' and item.why ~= '' then
    return item.why
  end
  local s = item.signals or {}
  local why = {}
  local names = names_of(s.defines)
  if #names > 0 then
    table.insert(why, 'defines ' .. table.concat(names, ', '))
  elseif (s.definition or 0) > 0 then
    table.insert(why, 'defines a name used near the cursor')
  end
  if s.import == true then table.insert(why, 'in a file this one imports') end
  if s.sameFile == true then table.insert(why, 'in this file') end
  if (s.bm25 or 0) > 0 then table.insert(why, 'matching words') end
  return #why > 0 and table.concat(why, '; ') or 'related text'
end

-- An item's name: its symbol, the names it defines, or its first line.
local function title_of(item)
  if item.symbol and item.symbol ~= '' then
    return item.symbol
  end
  local names = names_of((item.signals or {}).defines)
  if #names > 0 then
    return table.concat(names, ', ')
  end
  return ((item.text:match('[^\n]*%S[^\n]*') or ''):gsub('^%s+', ''))
end

--- The result as prompt text: each chunk under a header naming its file
--- and lines, in a fence tagged with its language.
function M.format(result, root)
  local out = {}
  for _, item in ipairs(result.items or {}) do
    local body = {}
    for _, p in ipairs(item.parents or {}) do
      table.insert(body, p.header)
    end
    table.insert(body, (item.text:gsub('\n$', '')))
    local text = table.concat(body, '\n')
    local fence = '```'
    for run in text:gmatch('`+') do
      if #run >= #fence then fence = string.rep('`', #run + 1) end
    end
    table.insert(out, ('### %s (lines %s)'):format(relpath(item.uri, root),
      lines_of(item.range)))
    table.insert(out, fence .. item.language)
    table.insert(out, text)
    table.insert(out, fence)
    table.insert(out, '')
  end
  return table.concat(out, '\n')
end

-- ------------------------------------------------------------------------
-- The view: a list of ranked chunks; <CR> jumps to one
-- ------------------------------------------------------------------------

local PREVIEW_LINES = 3

-- Lines for the view and, per line, the item it belongs to.
local function view_lines(heading, result, root)
  local lines, owner = { heading, '' }, { false, false }
  for i, item in ipairs(result.items or {}) do
    table.insert(lines, ('%d. %s:%s  score %.2f  %s%s'):format(i,
      relpath(item.uri, root), lines_of(item.range), item.score,
      title_of(item), item.clipped == true and '  (clipped)' or ''))
    table.insert(lines, '   ' .. M.why(item))
    table.insert(owner, i)
    table.insert(owner, i)
    local shown = 0
    for l in item.text:gmatch('[^\n]*') do
      if shown >= PREVIEW_LINES then break end
      if l:match('%S') then
        table.insert(lines, '   │ ' .. l)
        table.insert(owner, i)
        shown = shown + 1
      end
    end
  end
  if #(result.items or {}) == 0 then
    table.insert(lines, 'No related code found.')
    table.insert(owner, false)
  end
  return lines, owner
end

local function jump(item, from_win)
  if from_win and api.nvim_win_is_valid(from_win) then
    api.nvim_set_current_win(from_win)
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.uri_to_fname(item.uri)))
  api.nvim_win_set_cursor(0, { item.range.start.line + 1, 0 })
  vim.cmd('normal! zt')
end

--- Shows a castls/context or castls/search result; returns the view's
--- buffer and window.
function M.show(heading, result, root)
  local lines, owner = view_lines(heading, result, root)
  local from = api.nvim_get_current_win()
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  api.nvim_buf_set_option(buf, 'modifiable', false)
  api.nvim_buf_set_option(buf, 'bufhidden', 'wipe')
  api.nvim_buf_set_option(buf, 'filetype', 'castls')
  local win
  if M.config.view == 'split' then
    vim.cmd('botright ' .. math.min(#lines, 20) .. 'split')
    win = api.nvim_get_current_win()
    api.nvim_win_set_buf(win, buf)
  else
    local width = 0
    for _, l in ipairs(lines) do
      width = math.max(width, vim.fn.strdisplaywidth(l))
    end
    width = math.min(width + 2, math.max(vim.o.columns - 8, 20))
    local height = math.min(#lines, math.max(vim.o.lines - 6, 5))
    win = api.nvim_open_win(buf, true, {
      relative = 'editor', style = 'minimal', border = 'rounded',
      width = width, height = height,
      row = math.floor((vim.o.lines - height) / 2) - 1,
      col = math.floor((vim.o.columns - width) / 2),
    })
  end
  api.nvim_win_set_option(win, 'cursorline', true)
  local close = function()
    if api.nvim_win_is_valid(win) then api.nvim_win_close(win, true) end
  end
  local function open()
    local i = owner[api.nvim_win_get_cursor(win)[1]]
    if not i then return end
    close()
    jump(result.items[i], from)
  end
  local o = { buffer = buf, nowait = true, silent = true }
  vim.keymap.set('n', '<CR>', open, o)
  vim.keymap.set('n', 'q', close, o)
  vim.keymap.set('n', '<Esc>', close, o)
  if owner[3] then
    api.nvim_win_set_cursor(win, { 3, 0 })
  end
  M.last_view = { buf = buf, win = win, result = result }
  return buf, win
end

-- ------------------------------------------------------------------------
-- Commands
-- ------------------------------------------------------------------------

local function root_of(bufnr)
  local client = client_of(bufnr)
  return client and client.config.root_dir
end

--- What a result given while the workspace is being indexed is shown with.
M.partial_note = '(indexing: results may be partial)'

-- A view's heading, with the note when the result says it is partial.
local function heading_of(text, result)
  if result.indexing == true then
    return text .. '  ' .. M.partial_note
  end
  return text
end

function M.show_context()
  local bufnr = api.nvim_get_current_buf()
  local row = api.nvim_win_get_cursor(0)[1]
  local name = relpath(vim.uri_from_bufnr(bufnr), root_of(bufnr))
  -- M.context, not a local: plugins (and tests) may wrap it.
  return M.context(bufnr, nil, {}, function(err, result)
    if err then
      return echo('castls: ' .. err, 'ErrorMsg')
    end
    M.show(heading_of(('castls context for %s:%d  (%d chunks, %d/%d tokens)')
      :format(name, row, #result.items, result.budget.used,
        result.budget.limit), result), result, root_of(bufnr))
  end)
end

function M.show_search(query)
  local bufnr = api.nvim_get_current_buf()
  return M.search(query, {}, function(err, result)
    if err then
      return echo('castls: ' .. err, 'ErrorMsg')
    end
    M.show(heading_of(('castls search "%s"  (%d chunks)'):format(query,
      #result.items), result), result, root_of(bufnr))
  end)
end

local function size(bytes)
  if bytes < 1024 then return bytes .. ' B' end
  if bytes < 1024 * 1024 then return ('%d KB'):format(bytes / 1024) end
  return ('%.1f MB'):format(bytes / (1024 * 1024))
end

--- The status as lines of text.
function M.status_lines(st)
  local lines = { ('castls: %d files, %d chunks, %d symbols%s'):format(
    st.files, st.chunks, st.spans, st.indexing and ' (indexing)' or '') }
  for _, r in ipairs(st.roots or {}) do
    if r.error then
      table.insert(lines, ('  %s: %s'):format(r.path, r.error))
    else
      local langs = {}
      for l, n in pairs(r.languages or {}) do
        table.insert(langs, l .. ' ' .. n)
      end
      table.sort(langs)
      table.insert(lines, ('  %s: %d files (%s), index %s, %s'):format(
        r.path, r.files or 0, table.concat(langs, ', '),
        size(r.databaseBytes or 0), r.database or '?'))
    end
  end
  return lines
end

function M.show_status()
  return M.status(function(err, st)
    if err then
      return echo('castls: ' .. err, 'ErrorMsg')
    end
    echo(table.concat(M.status_lines(st), '\n'))
  end)
end

function M.reindex()
  local fail = function(err) echo('castls: ' .. err, 'ErrorMsg') end
  return when_ready(0, fail, function(client, bufnr)
    request(client, 'workspace/executeCommand',
      { command = 'castls.reindex' }, function(err)
        echo(err and ('castls: ' .. err.message) or 'castls: reindexing',
          err and 'ErrorMsg' or nil)
      end, bufnr)
  end)
end

--- For 'statusline': "castls: indexing 40%" while the buffer's server
--- indexes, "castls" when it is ready, "castls: stopped" when a buffer
--- castls served has lost its server, "" elsewhere. The User autocmd
--- CastlsProgress fires on each change.
function M.statusline(bufnr)
  local client
  client, bufnr = client_of(bufnr)
  if not client then
    return wanted[bufnr] and api.nvim_buf_is_valid(bufnr) and
      'castls: stopped' or ''
  end
  local p = progress[client.id]
  if p then
    return 'castls: indexing' ..
      (p.percentage and (' %d%%'):format(p.percentage) or '')
  end
  return 'castls'
end

-- The castls clients running (started by this plugin or not).
local function castls_clients()
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or
    vim.lsp.get_active_clients()
  local out = {}
  for _, c in ipairs(all) do
    if c.name == 'castls' then table.insert(out, c) end
  end
  return out
end

--- The buffers castls serves or served, as { [bufnr] = client id or false }.
function M.buffers()
  local out = {}
  for b in pairs(wanted) do
    if api.nvim_buf_is_valid(b) then
      out[b] = attached[b] or false
    end
  end
  return out
end

--- Stops every castls server and starts them again; each buffer castls
--- served is attached again (no :edit needed, also after a server died).
--- callback(n), optional, once n buffers are attached.
function M.restart(callback)
  local ids = {}
  for _, c in ipairs(castls_clients()) do
    stopping[c.id] = true
    table.insert(ids, c.id)
    vim.lsp.stop_client(c.id)
  end
  by_root = {}
  attached = {}
  local waited = 0
  local function go()
    local alive = {}
    for _, id in ipairs(ids) do
      if vim.lsp.get_client_by_id(id) then table.insert(alive, id) end
    end
    if #alive > 0 and waited < 5000 then
      waited = waited + 50
      return vim.defer_fn(go, 50)
    end
    for _, id in ipairs(alive) do
      vim.lsp.stop_client(id, true)
    end
    local n = 0
    for b in pairs(wanted) do
      if api.nvim_buf_is_valid(b) and api.nvim_buf_is_loaded(b) then
        if M.attach(b) then n = n + 1 end
      else
        wanted[b] = nil
      end
    end
    echo(('castls: restarted, %d buffer%s attached'):format(n,
      n == 1 and '' or 's'))
    if callback then callback(n) end
  end
  go()
end

--- setup{ cmd = {...}, settings = {...}, filetypes = {...}, view = ... }
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', M.config, opts or {})
  local group = api.nvim_create_augroup('castls', { clear = true })
  api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(ev)
      if vim.bo[ev.buf].buftype == '' then
        M.attach(ev.buf)
      end
    end,
  })
  api.nvim_create_autocmd('BufWipeout', {
    group = group,
    callback = function(ev) wanted[ev.buf] = nil end,
  })
  local cmd = api.nvim_create_user_command
  cmd('CastlsContext', function() M.show_context() end,
    { desc = 'castls: ranked context at the cursor' })
  cmd('CastlsSearch', function(a) M.show_search(a.args) end,
    { nargs = '+', desc = 'castls: search the workspace index' })
  cmd('CastlsStatus', function() M.show_status() end,
    { desc = 'castls: index status' })
  cmd('CastlsReindex', function() M.reindex() end,
    { desc = 'castls: reindex the workspace' })
  cmd('CastlsRestart', function() M.restart() end,
    { desc = 'castls: restart the server; its buffers attach again' })
  -- Buffers already open when setup runs.
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == '' and
        vim.tbl_contains(M.config.filetypes, vim.bo[b].filetype) then
      M.attach(b)
    end
  end
end

return M

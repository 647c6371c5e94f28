-- nvim_test.lua: the Neovim plugin against the real castls, run by
-- tests/editors/run.sh in `nvim --headless --clean`. Opens pkg/report.py
-- in the test repository, lets setup() attach castls, runs the commands
-- and the Lua API, and checks the buffers and the returned items.
-- Environment: CASTLS_SERVER, CASTLS_TEST_REPO, CASTLS_NVIM_PLUGIN.

local repo = vim.loop.fs_realpath(os.getenv('CASTLS_TEST_REPO'))
local failures = 0

local function log(msg)
  io.stdout:write(msg .. '\n')
end

local function check(cond, what, detail)
  if cond then
    log('ok   ' .. what)
  else
    failures = failures + 1
    log('FAIL ' .. what .. (detail and ('\n     ' .. vim.inspect(detail)) or ''))
  end
  return cond
end

local function wait(ms, cond, what)
  local ok = vim.wait(ms, cond, 20)
  if not ok then
    error('timed out waiting for ' .. what)
  end
end

local function buf_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

-- Each item's `why` as the server sent it, on the line under the item in
-- the view's text; and no name list split into ",,".
local function check_whys(text, result, what)
  local missing = {}
  for i, item in ipairs(result.items) do
    if type(item.why) ~= 'string' or item.why == '' or
        not (text .. '\n'):find('\n' .. i .. '%. [^\n]*\n   ' ..
          vim.pesc(item.why) .. '\n') then
      table.insert(missing, { i, item.why })
    end
  end
  check(#result.items > 0 and #missing == 0,
    what .. ': each item shows the server\'s why', { missing, text })
  check(not text:find(',,', 1, true), what .. ': no ",," in the view', text)
end

-- Calls an API function and waits for its callback.
local function sync(fn, ...)
  local done, err, res = false, nil, nil
  local n = select('#', ...)
  local args = { ... }
  args[n + 1] = function(e, r)
    done, err, res = true, e, r
  end
  fn(unpack(args, 1, n + 1))
  wait(10000, function() return done end, 'a castls reply')
  return err, res
end

-- The castls client attached to a buffer, or nil.
local function castls_client(b)
  for _, c in pairs(vim.lsp.buf_get_clients(b)) do
    if c.name == 'castls' then return c end
  end
end

-- Roots without git: the nearest directory with a project file, else
-- none. Files in no project share one castls with no root, which indexes
-- nothing and serves each from its buffer (the plugin used to root each
-- at its own directory: a server and an index per directory, the whole
-- parent tree indexed). Never / or the home directory.
local function roots_without_git(castls)
  local top = vim.loop.fs_realpath(repo .. '/..')
  local proj, loose, home = top .. '/proj', top .. '/loose', top .. '/home'
  vim.fn.mkdir(proj .. '/pkg', 'p')
  vim.fn.mkdir(loose .. '/deep', 'p')
  vim.fn.mkdir(home .. '/.git', 'p')
  vim.fn.mkdir(home .. '/notes', 'p')
  vim.fn.writefile({ '[project]', 'name = "proj"' }, proj .. '/pyproject.toml')
  vim.fn.writefile({ 'def exchange_rate(currency):',
    '    """Units of currency per euro."""', '    return 1.0' },
    proj .. '/pkg/rates.py')
  vim.fn.writefile({ 'from pkg.rates import exchange_rate', '', '',
    'def price(amount, currency):',
    '    return amount * exchange_rate(currency)' }, proj .. '/pkg/prices.py')
  -- Line 24: "    total = sum(celsius_to_kelvin(v) for _, v in readings)".
  vim.fn.writefile({ '"""Loose helpers, in no project."""', '', '',
    'def celsius_to_kelvin(celsius):',
    '    """Kelvin for a temperature in degrees Celsius."""',
    '    return celsius + 273.15', '', '',
    'def describe(reading):', '    """A line about one reading."""',
    '    place, value = reading', '    text = place.strip().title()',
    "    text = text + ': '", '    text = text + str(round(value, 1))',
    '    return text', '', '', 'def report(readings):',
    '    lines = [describe(r) for r in readings]',
    '    warmest = max(readings, key=lambda r: r[1])',
    '    coldest = min(readings, key=lambda r: r[1])',
    "    lines.append('warmest: ' + describe(warmest))",
    "    lines.append('coldest: ' + describe(coldest))",
    '    total = sum(celsius_to_kelvin(v) for _, v in readings)',
    '    return lines, total' }, loose .. '/weather.py')
  vim.fn.writefile({ 'LOOSE_NEIGHBOUR = 1' }, loose .. '/deep/other.py')
  vim.fn.writefile({ 'x = 1' }, home .. '/notes/todo.py')

  local root, how = castls.root_dir(proj .. '/pkg/prices.py')
  check(root == proj and how == 'marker',
    'root without git: the directory with pyproject.toml', { root, how })
  root, how = castls.root_dir(loose .. '/deep/other.py')
  check(root == nil and how == 'file', 'root of a file in no project: none',
    { root, how })
  local saved_home = vim.env.HOME
  vim.env.HOME = home
  root, how = castls.root_dir(home .. '/notes/todo.py')
  vim.env.HOME = saved_home
  check(root == nil, 'root: never the home directory, even with .git',
    { root, how })

  local function open(path)
    vim.cmd('edit ' .. vim.fn.fnameescape(path))
    local b = vim.api.nvim_get_current_buf()
    wait(10000, function()
      local c = castls_client(b)
      return c and c.initialized
    end, 'castls for ' .. path)
    return b, castls_client(b)
  end
  local weather, wc = open(loose .. '/weather.py')
  local other, oc = open(loose .. '/deep/other.py')
  check(wc.config.root_dir == nil,
    'a file in no project: a client with no root', wc.config.root_dir)
  check(oc.id == wc.id, 'two files in no project share one castls',
    { wc.id, oc.id })
  local _, st = sync(function(cb) return castls.status(cb, weather) end)
  check(st and #st.roots == 0 and st.files == 0 and not st.indexing,
    'files in no project: nothing indexed', st)
  local err, res = sync(castls.context, weather, { 24, 30 }, {})
  local own = false
  for _, item in ipairs(res and res.items or {}) do
    if item.symbol == 'celsius_to_kelvin' and
        item.uri == vim.uri_from_fname(loose .. '/weather.py') then
      own = true
    end
  end
  check(err == nil and own,
    'a file in no project: the context holds its own definitions',
    err or res)

  local cmd = castls.config.cmd
  castls.config.cmd = { os.getenv('CASTLS_BIN'), 'serve' }
  vim.cmd('checkhealth castls')
  local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false),
    '\n')
  vim.cmd('tabclose')
  castls.config.cmd = cmd
  check(health:find(loose .. '/weather.py: no root (in no project: ' ..
    'served alone, nothing indexed)', 1, true),
    'checkhealth: a file in no project', health)

  local prices, pc = open(proj .. '/pkg/prices.py')
  local rates, rc = open(proj .. '/pkg/rates.py')
  check(pc.config.root_dir == proj and rc.id == pc.id and pc.id ~= wc.id,
    'two files of a project without git share its castls',
    { pc.config.root_dir, pc.id, rc.id, wc.id })
  wait(30000, function()
    local _, s = sync(function(cb) return castls.status(cb, prices) end)
    st = s
    return s and not s.indexing and s.files == 2
  end, 'the index of the project without git')
  check(#st.roots == 1 and st.roots[1].path == proj,
    'the project without git is the one root', st.roots)
  err, res = sync(castls.context, prices, { 5, 30 }, {})
  check(err == nil and res.items[1] and
    res.items[1].uri == vim.uri_from_fname(proj .. '/pkg/rates.py'),
    'context in a project without git: its other files', err or res)

  for _, c in ipairs({ wc, pc }) do
    vim.lsp.stop_client(c.id)
  end
  wait(10000, function()
    return vim.lsp.get_client_by_id(wc.id) == nil and
      vim.lsp.get_client_by_id(pc.id) == nil
  end, 'the clients without git to stop')
  for _, b in ipairs({ weather, other, prices, rates }) do
    vim.cmd('bwipeout! ' .. b)
  end

  -- An index castls cannot write: said where the user looks (Neovim
  -- shows window/showMessage, not window/logMessage), with the path.
  local saved = castls.config.settings.dbPath
  castls.config.settings.dbPath = '/dev/null/castls/index.db'
  vim.cmd('messages clear')
  local ro, roc = open(proj .. '/pkg/rates.py')
  wait(30000, function()
    return vim.fn.execute('messages'):find('cannot write the index', 1,
      true) ~= nil
  end, 'the message that the index cannot be written')
  check(vim.fn.execute('messages'):find('/dev/null/castls/index.db', 1, true)
    and vim.fn.execute('messages'):find('dbPath', 1, true),
    'the message names the database and the setting',
    vim.fn.execute('messages'))
  castls.config.settings.dbPath = saved
  vim.lsp.stop_client(roc.id)
  wait(10000, function()
    return vim.lsp.get_client_by_id(roc.id) == nil
  end, 'the client with an unwritable index to stop')
  vim.cmd('bwipeout! ' .. ro)
end

local function run()
  vim.opt.rtp:append(os.getenv('CASTLS_NVIM_PLUGIN'))
  local castls = require('castls')
  castls.setup({
    cmd = { os.getenv('CASTLS_SERVER'), 'serve' },
    settings = { maxChunkSize = 150, budgetTokens = 1500 },
  })

  -- :help castls straight from the plugin's directory, with no :helptags:
  -- the shipped doc/tags. It must be what :helptags makes of the doc.
  local plugin = os.getenv('CASTLS_NVIM_PLUGIN')
  check(pcall(vim.cmd, 'help castls') and vim.fn.expand('%:t') == 'castls.txt',
    ':help castls without :helptags')
  vim.cmd('help :CastlsContext')
  check(vim.fn.getline('.'):match('%*:CastlsContext%*'), ':help :CastlsContext')
  vim.cmd('help castls.context()')
  check(vim.fn.getline('.'):match('%*castls%.context%(%)%*'),
    ':help castls.context()')
  check(pcall(vim.cmd, 'help :CastlsRestart'), ':help :CastlsRestart')
  check(pcall(vim.cmd, 'help castls.statusline()'), ':help castls.statusline()')
  vim.cmd('close')
  local doc = vim.fn.tempname()
  vim.fn.mkdir(doc, 'p')
  vim.fn.writefile(vim.fn.readfile(plugin .. '/doc/castls.txt', 'b'),
    doc .. '/castls.txt', 'b')
  vim.cmd('helptags ' .. doc)
  local made = table.concat(vim.fn.readfile(doc .. '/tags', 'b'), '\n')
  local shipped = vim.fn.filereadable(plugin .. '/doc/tags') == 1 and
    table.concat(vim.fn.readfile(plugin .. '/doc/tags', 'b'), '\n')
  check(shipped == made, 'doc/tags is what :helptags makes of castls.txt',
    { shipped = shipped, made = made })

  -- The statusline component, at each $/progress and in 'statusline'.
  local report = repo .. '/pkg/report.py'
  local lines_seen = {}
  vim.api.nvim_create_autocmd('User', {
    pattern = 'CastlsProgress',
    callback = function()
      local b = vim.fn.bufnr(report)
      if b > 0 then
        table.insert(lines_seen, castls.statusline(b))
      end
    end,
  })
  vim.o.laststatus = 2
  vim.o.statusline = "%{v:lua.require'castls'.statusline()}"
  local function statusline_shown()
    return vim.api.nvim_eval_statusline(vim.o.statusline, {}).str
  end

  vim.cmd('edit ' .. repo .. '/pkg/report.py')
  local src = vim.api.nvim_get_current_buf()
  check(vim.bo.filetype == 'python', 'filetype python')

  -- Asked before the server is up: the request waits for it (and for the
  -- buffer's didOpen) instead of failing with "document not open".
  local early_err, early = sync(require('castls').context, src, { 8, 18 }, {})
  check(early_err == nil and early and early.items,
    'context asked right away is answered', early_err)

  -- Attached, initialized, rooted at the git root (not pkg/).
  local client
  wait(10000, function()
    local id = vim.lsp.get_clients and
      (vim.lsp.get_clients({ bufnr = src })[1] or {}).id
      or next(vim.lsp.buf_get_clients(src))
    client = id and vim.lsp.get_client_by_id(id)
    return client and client.initialized
  end, 'the castls client')
  check(client.name == 'castls', 'client name castls', client.name)
  check(client.config.root_dir == repo, 'root is the git root',
    client.config.root_dir)

  -- Indexing done: the status lists the four files.
  local st
  wait(30000, function()
    local _, s = sync(castls.status)
    st = s
    return s and not s.indexing and s.files == 5
  end, 'the index')
  check(st.chunks >= 4, 'status: chunks indexed', st)
  check(st.roots[1].languages.python == 3 and
    st.roots[1].languages.typescript == 1,
    'status: three Python files and one TypeScript', st.roots[1].languages)

  -- :CastlsContext at "total += circle_area(r)".
  local line = vim.fn.search('circle_area(r)', 'w')
  check(line == 8, 'cursor on the call site', line)
  vim.api.nvim_win_set_cursor(0, { line, 18 })
  vim.cmd('CastlsContext')
  wait(10000, function()
    return vim.api.nvim_get_current_buf() ~= src
  end, 'the context window')
  local view, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  local text = buf_text(view)
  log(text)
  check(vim.api.nvim_win_get_config(win).relative == 'editor',
    'the context is in a floating window')
  check(text:match('^castls context for pkg/report%.py:8  %(%d+ chunks, %d+/1500 tokens%)'),
    'heading names the file, line and budget', text)
  check(text:match('\n1%. pkg/geometry%.py:5%-7  score %d%.%d%d  circle_area'),
    'first item: the definition of circle_area', text)
  check(text:find('\n   defines circle_area, used near the cursor; ' ..
    'a name this file imports; in a file this one imports', 1, true),
    'why it was ranked, in the server\'s words', text)
  check_whys(text, castls.last_view.result, 'context')
  check(text:match('│ def circle_area%(radius%):'), 'a code preview', text)
  check(not vim.bo[view].modifiable, 'the view is read-only')

  -- Enter on the first item jumps to its file and line.
  vim.api.nvim_win_set_cursor(win, { 3, 0 })
  vim.cmd('execute "normal \\<CR>"')
  check(not vim.api.nvim_win_is_valid(win), 'the window closed on Enter')
  check(vim.api.nvim_buf_get_name(0) == repo .. '/pkg/geometry.py',
    'Enter opened geometry.py', vim.api.nvim_buf_get_name(0))
  check(vim.api.nvim_win_get_cursor(0)[1] == 5, 'at the definition\'s first line',
    vim.api.nvim_win_get_cursor(0))
  local geometry = vim.api.nvim_get_current_buf()
  vim.cmd('buffer ' .. src)

  -- :CastlsContext in Square.diagonal, a subclass of Rectangle: its
  -- methods are members, and small siblings are shown as one item.
  vim.cmd('buffer ' .. geometry)
  vim.api.nvim_win_set_cursor(0, { 31, 20 })
  vim.cmd('CastlsContext')
  wait(10000, function()
    return vim.api.nvim_get_current_buf() ~= geometry
  end, 'the context window in geometry.py')
  text = buf_text(0)
  log(text)
  check(text:match('  Rectangle%.__init__\n   defines __init__, area, ' ..
    'perimeter, used near the cursor; a member of the class being written ' ..
    'or its bases; [^\n]*; shown with Rectangle%.area, Rectangle%.perimeter\n'),
    'a member, shown with its siblings, in the server\'s words', text)
  check_whys(text, castls.last_view.result, 'context in a subclass')
  vim.cmd('normal q')
  vim.cmd('buffer ' .. src)

  -- :CastlsSearch in a split view.
  castls.config.view = 'split'
  vim.cmd('CastlsSearch Rectangle perimeter')
  wait(10000, function()
    return vim.api.nvim_get_current_buf() ~= src
  end, 'the search view')
  text = buf_text(0)
  check(vim.api.nvim_win_get_config(0).relative == '', 'split view')
  check(text:match('^castls search "Rectangle perimeter"  %(%d+ chunks%)'),
    'search heading', text)
  check(text:match('\n1%. pkg/geometry%.py:%d+%-%d+  score'),
    'search finds geometry.py first', text)
  check_whys(text, castls.last_view.result, 'search')
  vim.cmd('normal q')
  check(vim.api.nvim_get_current_buf() == src, 'q closes the view')
  castls.config.view = 'float'

  -- The Lua API, as an AI plugin would use it.
  local err, res = sync(castls.context, src, { 8, 18 }, { budget = 60 })
  check(err == nil, 'context: no error', err)
  check(res.budget.limit == 60 and res.budget.used <= 60,
    'context: the budget is honoured', res.budget)
  local found = false
  for _, item in ipairs(res.items) do
    if item.uri == vim.uri_from_fname(repo .. '/pkg/geometry.py') and
        item.text:find('def circle_area', 1, true) then
      found = true
    end
  end
  check(found, 'context: an item is the defining chunk in geometry.py',
    res.items)
  local prompt = castls.format(res, repo)
  check(prompt:match('^### pkg/geometry%.py %(lines 5%-7%)\n```python\n'),
    'format: prompt text with a file header', prompt)
  -- A server older than `why`: a few words from the signals, the names
  -- comma-separated as castls sends them (older ones: spaces).
  for _, defines in ipairs({ 'area, perimeter', 'area perimeter' }) do
    local why = castls.why({ signals = { bm25 = 0, definition = 0.5,
      defines = defines, import = true, sameFile = false } })
    check(why == 'defines area, perimeter; in a file this one imports',
      'why without the server\'s words: ' .. defines, why)
  end
  err, res = sync(castls.context, vim.fn.bufadd('/nonexistent.py'), nil, {})
  check(err and err:match('not attached'), 'context: unattached buffer', err)

  -- A result given while indexing says it may be partial.
  local real_context = castls.context
  castls.context = function(b, p, o, cb)
    return real_context(b, p, o, function(e, r)
      if r then r.indexing = true end
      cb(e, r)
    end)
  end
  vim.api.nvim_win_set_cursor(0, { 8, 18 })
  vim.cmd('CastlsContext')
  castls.context = real_context
  wait(10000, function()
    return vim.api.nvim_get_current_buf() ~= src
  end, 'the partial context window')
  text = buf_text(0)
  check(text:match('^castls context for pkg/report%.py:8  %(%d+ chunks, %d+/1500 tokens%)  %(indexing: results may be partial%)\n'),
    'a result given while indexing says it may be partial', text)
  vim.cmd('normal q')
  vim.cmd('buffer ' .. src)

  -- :CastlsStatus and :CastlsReindex put their answer in :messages.
  vim.cmd('messages clear')
  vim.cmd('CastlsStatus')
  wait(10000, function()
    return vim.fn.execute('messages'):match('castls: 5 files') ~= nil
  end, 'the status message')
  check(vim.fn.execute('messages'):match(vim.pesc(repo) .. ': 5 files %(markdown 1, python 3, typescript 1%), index [%d%.]+ [KM]B'),
    'status names the root and its languages', vim.fn.execute('messages'))
  vim.cmd('CastlsReindex')
  wait(10000, function()
    return vim.fn.execute('messages'):match('castls: reindexing') ~= nil
  end, 'the reindex message')
  wait(30000, function()
    local _, s = sync(castls.status)
    return s and not s.indexing and castls.statusline(src) == 'castls'
  end, 'reindexing to finish')
  local progressed = false
  for _, l in ipairs(lines_seen) do
    if l:match('^castls: indexing %d+%%$') then progressed = true end
  end
  check(progressed, 'the statusline showed indexing progress', lines_seen)
  check(statusline_shown() == 'castls',
    "'statusline' shows castls once indexed", statusline_shown())

  -- :checkhealth castls. Its version probe runs the binary itself, not
  -- the wrapper that records server runs.
  local cmd = castls.config.cmd
  castls.config.cmd = { os.getenv('CASTLS_BIN'), 'serve' }
  local function health()
    vim.cmd('checkhealth castls')
    local t = buf_text(0)
    vim.cmd('tabclose')
    return t
  end
  local report_text = health()
  log(report_text)
  -- "- OK: msg" on 0.7, "- OK msg" later.
  local function has(t, status, msg)
    return t:find('- ' .. status .. ':? ' .. vim.pesc(msg)) ~= nil
  end
  check(has(report_text, 'OK', 'found ' .. os.getenv('CASTLS_BIN')),
    'checkhealth: the binary is found', report_text)
  check(has(report_text, 'OK', 'castls --version: ') or
    has(report_text, 'WARNING', '`castls --version` failed'),
    'checkhealth: castls --version', report_text)
  check(report_text:match('%- OK:? index of ' .. vim.pesc(repo) ..
    ': [^\n]*index%.db, in a writable directory'),
    'checkhealth: the index path is writable', report_text)
  check(has(report_text, 'OK', report .. ': root ' .. repo ..
    ' (its git root)'), 'checkhealth: the root', report_text)
  check(not report_text:find('ERROR', 1, true), 'checkhealth: no error',
    report_text)
  castls.config.settings.dbPath = '/dev/null/castls/index.db'
  report_text = health()
  castls.config.settings.dbPath = nil
  castls.config.cmd = { '/nonexistent/castls', 'serve' }
  local missing = health()
  castls.config.cmd = cmd
  check(has(report_text, 'ERROR', 'dbPath /dev/null/castls/index.db: ' ..
    '/dev/null is not a directory'),
    'checkhealth: an index path that cannot be written', report_text)
  check(has(missing, 'ERROR', "'/nonexistent/castls' is not an executable"),
    'checkhealth: a missing binary', missing)

  -- :CastlsRestart with the server running: a new one, buffers attached.
  local function client_of(b)
    for _, c in pairs(vim.lsp.buf_get_clients(b)) do
      if c.name == 'castls' then return c end
    end
  end
  local old = client
  vim.cmd('CastlsRestart')
  wait(10000, function()
    local c = client_of(src)
    return c and c.id ~= old.id and c.initialized and
      vim.lsp.get_client_by_id(old.id) == nil
  end, 'a new castls after :CastlsRestart')
  client = client_of(src)
  check(client_of(geometry) and client_of(geometry).id == client.id,
    ':CastlsRestart attached geometry.py too')

  -- The server goes away behind the plugin's back: the buffers are
  -- detached, the statusline says so, and :CastlsRestart attaches them
  -- again without :edit.
  vim.cmd('messages clear')
  client.request('shutdown', nil, function()
    client.notify('exit')
  end, src)
  local dead = client.id
  wait(10000, function()
    return vim.lsp.get_client_by_id(dead) == nil
  end, 'the server to exit')
  check(client_of(src) == nil, 'the buffer lost its server')
  check(castls.statusline(src) == 'castls: stopped',
    'the statusline says castls stopped', castls.statusline(src))
  wait(5000, function()
    return vim.fn.execute('messages'):find('castls stopped', 1, true) ~= nil
  end, 'the message that castls stopped')
  check(vim.fn.execute('messages'):find(':CastlsRestart starts it again', 1,
    true), 'the message says how to restart', vim.fn.execute('messages'))
  vim.cmd('CastlsRestart')
  wait(10000, function()
    local c = client_of(src)
    return c and c.initialized
  end, 'castls after a crash and :CastlsRestart')
  client = client_of(src)
  check(client_of(geometry) and client_of(geometry).id == client.id,
    'geometry.py attached again without :edit')
  wait(30000, function()
    local _, s = sync(castls.status)
    return s and not s.indexing
  end, 'the new server to index')
  err, res = sync(castls.context, src, { 8, 18 }, {})
  check(err == nil and res.items[1] and res.items[1].symbol == 'circle_area',
    'context after :CastlsRestart', err or res)

  -- A C++ buffer (not on disk, so the index keeps its five files) gets
  -- castls too, as do Go, Rust, Java and C ones by filetype.
  for _, ft in ipairs({ 'go', 'rust', 'java', 'c', 'cpp' }) do
    check(vim.tbl_contains(castls.config.filetypes, ft), 'filetype ' .. ft)
  end
  vim.cmd('edit ' .. repo .. '/scratch.cpp')
  local cpp = vim.api.nvim_get_current_buf()
  check(vim.bo.filetype == 'cpp', 'filetype cpp', vim.bo.filetype)
  wait(10000, function()
    return vim.lsp.buf_is_attached(cpp, client.id)
  end, 'castls attached to a C++ buffer')

  roots_without_git(castls)

  -- Stop the client; the driver checks the server's exit and stderr.
  vim.lsp.stop_client(client.id)
  wait(10000, function()
    return vim.lsp.get_client_by_id(client.id) == nil
  end, 'the client to stop')
end

local ok, err = pcall(run)
if not ok then
  log('FAIL error: ' .. tostring(err))
  failures = failures + 1
end
log(('%d failure(s)'):format(failures))
if failures > 0 then
  vim.cmd('cquit 1')
else
  vim.cmd('qall!')
end

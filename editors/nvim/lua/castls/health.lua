-- :checkhealth castls: the server binary and its version, where the
-- index is written, and the workspace root of each buffer castls serves.
-- Neovim 0.7 reports through require('health').report_*, 0.9 and later
-- through vim.health.{start,ok,warn,error,info}.

local M = {}

local uv = vim.loop
local health = vim.health or require('health')
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local report_error = health.error or health.report_error
local info = health.info or health.report_info

-- Whether a file can be made in dir (made itself if it is missing):
-- true, or false and why not. The probe goes into the nearest directory
-- that exists, as the server's mkdir -p would.
local function writable(dir)
  local d = dir
  while not uv.fs_stat(d) do
    local parent = vim.fn.fnamemodify(d, ':h')
    if parent == d then break end
    d = parent
  end
  local st = uv.fs_stat(d)
  if not st then
    return false, d .. ' does not exist'
  end
  if st.type ~= 'directory' then
    return false, d .. ' is not a directory'
  end
  local probe = ('%s/.castls-health-%d'):format(d, vim.fn.getpid())
  local f = io.open(probe, 'w')
  if not f then
    return false, d .. ' is not writable'
  end
  f:close()
  os.remove(probe)
  return true
end

-- Where the server puts indexes when dbPath is not set.
local function cache_dir()
  local cache = os.getenv('XDG_CACHE_HOME')
  if not cache or cache == '' then
    cache = (os.getenv('HOME') or '/tmp') .. '/.cache'
  end
  return cache .. '/castls'
end

local function check_binary(cmd)
  start('castls: the server')
  local exe = cmd and cmd[1] and vim.fn.exepath(cmd[1]) or ''
  if exe == '' then
    report_error(("'%s' is not an executable (cmd = %s)"):format(
      tostring(cmd and cmd[1]), vim.inspect(cmd)), {
      'Install castls: `make install` in the castls sources.',
      "Or give its path: require('castls').setup({ cmd = { " ..
        "'/path/to/castls', 'serve' } })",
    })
    return
  end
  ok('found ' .. exe)
  local out = vim.fn.system({ exe, '--version' })
  local first = vim.trim((out or ''):match('[^\n]*') or '')
  if vim.v.shell_error == 0 then
    ok('castls --version: ' .. first)
  else
    warn(('`castls --version` failed (exit %d): %s'):format(
      vim.v.shell_error, first),
      { 'This castls may be older than the plugin: build and install it again.' })
  end
end

local function check_index(castls)
  start('castls: the index')
  local settings = castls.config.settings or {}
  if type(settings.dbPath) == 'string' and settings.dbPath ~= '' then
    local good, why = writable(vim.fn.fnamemodify(settings.dbPath, ':p:h'))
    if good then
      ok(('dbPath %s: in a writable directory'):format(settings.dbPath))
    else
      report_error(('dbPath %s: %s'):format(settings.dbPath, why),
        { 'Set settings.dbPath to a file in a writable directory, or ' ..
          'leave it out for ' .. cache_dir() .. '.' })
    end
  end
  local clients = vim.lsp.get_clients and vim.lsp.get_clients() or
    vim.lsp.get_active_clients()
  local asked = false
  for _, c in ipairs(clients) do
    if c.name == 'castls' and c.initialized then
      asked = true
      local reply
      if vim.fn.has('nvim-0.11') == 1 then
        reply = c:request_sync('castls/status', {}, 3000)
      else
        reply = c.request_sync('castls/status', {}, 3000)
      end
      local st = reply and reply.result
      if not st then
        warn(('castls (client %d) did not answer castls/status: %s'):format(
          c.id, reply and reply.err and reply.err.message or 'timeout'))
      end
      for _, r in ipairs(st and st.roots or {}) do
        if r.error then
          report_error(('index of %s: %s'):format(r.path, r.error))
        elseif r.database then
          local good, why = writable(vim.fn.fnamemodify(r.database, ':h'))
          if good then
            ok(('index of %s: %s, in a writable directory'):format(r.path,
              r.database))
          else
            report_error(('index of %s: %s: %s'):format(r.path, r.database, why))
          end
        end
      end
    end
  end
  if not asked and not settings.dbPath then
    local dir = cache_dir()
    local good, why = writable(dir)
    if good then
      ok(('indexes go under %s, a writable directory'):format(dir))
    else
      report_error(('indexes go under %s: %s'):format(dir, why),
        { 'Set XDG_CACHE_HOME, or settings.dbPath, to a writable place.' })
    end
  end
end

local function check_roots(castls)
  start('castls: workspace roots')
  local any = false
  for b, id in pairs(castls.buffers()) do
    local name = vim.api.nvim_buf_get_name(b)
    if name ~= '' then
      any = true
      local root, how = castls.root_dir(name)
      local client = id and vim.lsp.get_client_by_id(id)
      local why = ({
        git = 'its git root',
        marker = 'no .git above it: the nearest directory with a ' ..
          'project file',
        file = 'in no project: served alone, nothing indexed',
      })[how]
      if not client then
        warn(('%s: root %s (%s); castls is not running for it'):format(name,
          root or 'none', why), { ':CastlsRestart starts it again.' })
      elseif root then
        ok(('%s: root %s (%s)'):format(name, client.config.root_dir, why))
      else
        info(('%s: no root (%s)'):format(name, why))
      end
    end
  end
  if not any then
    info('castls serves no buffer yet (filetypes: ' ..
      table.concat(castls.config.filetypes, ', ') .. ')')
  end
end

function M.check()
  local castls = require('castls')
  check_binary(castls.config.cmd)
  check_index(castls)
  check_roots(castls)
end

return M

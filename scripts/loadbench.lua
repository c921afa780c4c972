-- wrk script for scripts/loadbench: the demo server's workloads over HTTP.
--
--   wrk -t1 -cN -dDs --latency -s scripts/loadbench.lua URL -- WORKLOAD [FILE [TOOL]]
--
-- TOOL is the ShipOrder tool the round workloads call (default `ShipOrder`;
-- the bench server also has `ShipOrderSigned` and `ShipOrderRmcp`), or the
-- task tool (`ParkTask`) the task workloads call; FILE `-` means none.
-- Requests go to URL's path. WORKLOAD:
--   plain         `ping`, a tool with no round (the baseline)
--   round1        ShipOrder round 1: the call, answered with a form and a state
--   mint          round 1, appending each answer's state to FILE (not timed)
--   round2        ShipOrder round 2, replaying FILE's first state (no guard)
--   round2-fresh  ShipOrder round 2, each request with the next of FILE's
--                 states; the thread stops when they run out (wrk takes one
--                 request at the start that it never sends: one state is lost)
--   signup        the signup team path end to end: each answer's state is
--                 queued and sent back with the next round's answer, so
--                 every connection carries rounds of many flows
--   task-mint     TOOL called declaring the Tasks extension, appending each
--                 created task's id to FILE (not timed)
--   task-get      `tasks/get` of FILE's first task, parked at input_required
--   task-update   `tasks/update`, each request answering `go-1` of the next
--                 of FILE's tasks (which resumes it); the thread stops when
--                 they run out, as in round2-fresh
--
-- Every response is checked: `ok` counts the expected answers, `bad` the
-- rest (a refused state, an error). done() prints one line,
-- `LOADBENCH {json}`, that scripts/loadbench reads: wrk's counts and latency
-- percentiles (µs), the checked counts, the span from the first request to
-- the last response by this script's own clock, and for `signup` the
-- percentiles of whole flows.

local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } loadbench_timespec;
int clock_gettime(int clock, loadbench_timespec *ts);
]]
local CLOCK_MONOTONIC = 1
local timespec = ffi.new("loadbench_timespec")

local function now_us()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, timespec)
  return tonumber(timespec.tv_sec) * 1e6 + tonumber(timespec.tv_nsec) / 1e3
end

local META = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
  .. '"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}'

-- `_meta` of a request that declares the Tasks extension.
local TASK_META = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
  .. '"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},'
  .. '"extensions":{"io.modelcontextprotocol/tasks":{}}}}'

-- The answer to ParkTask's question, under its key in the task.
local GO = '{"go-1":{"action":"accept","content":{"go":true}}}'

local ANSWERS = {
  ship = '{"ship":{"action":"accept","content":{"trackingNumber":"1Z999AA10123456784"}}}',
  account = '{"account":{"action":"accept","content":{"email":"ada@example.com","plan":"team"}}}',
  team = '{"team":{"action":"accept","content":{"teamSize":12,"roles":["admin","member"]}}}',
  confirm = '{"confirm":{"action":"accept","content":{}}}',
}

-- One JSON-RPC request `method` (its `Mcp-Name` header `name`) whose params
-- are the members `params` (no braces), to URL's path.
local function rpc(id, method, name, params)
  local body = '{"jsonrpc":"2.0","id":' .. id .. ',"method":"' .. method .. '","params":{'
    .. params .. '}}'
  local headers = {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
    ["MCP-Protocol-Version"] = "2026-07-28",
    ["Mcp-Method"] = method,
    ["Mcp-Name"] = name,
    ["Authorization"] = "Bearer ada",
  }
  return wrk.format("POST", wrk.path, headers, body)
end

-- One tools/call of `tool`, as the README's curl sends it.
local function call(id, tool, state, asked)
  local params = '"name":"' .. tool .. '","arguments":{}'
  if state then
    params = params .. ',"inputResponses":' .. ANSWERS[asked] .. ',"requestState":"' .. state .. '"'
  end
  return rpc(id, "tools/call", tool, params .. ',' .. META)
end

-- A tools/call of `tool` that declares the Tasks extension.
local function task_call(id, tool)
  return rpc(id, "tools/call", tool, '"name":"' .. tool .. '","arguments":{},' .. TASK_META)
end

local function task_get(id, task)
  return rpc(id, "tasks/get", task, '"taskId":"' .. task .. '",' .. TASK_META)
end

local function task_update(id, task)
  return rpc(id, "tasks/update", task,
    '"taskId":"' .. task .. '","inputResponses":' .. GO .. ',' .. TASK_META)
end

local function read_states(path)
  local states = {}
  local file = assert(io.open(path, "r"), "cannot read " .. tostring(path))
  for line in file:lines() do
    if #line > 0 then
      table.insert(states, line)
    end
  end
  file:close()
  assert(#states > 0, "no states in " .. path)
  return states
end

local function state_of(body)
  return body:match('"requestState":"([%w_%-%.]+)"')
end

-- Counts an unexpected answer; the first one is shown, to tell why.
local function refused(body)
  if bad == 0 then
    io.stderr:write("loadbench.lua: unexpected answer: ", body:sub(1, 400), "\n")
  end
  bad = bad + 1
end

local function completed(body, text)
  return body:find('"resultType":"complete"', 1, true) ~= nil
    and body:find(text, 1, true) ~= nil
end

-- Per-thread results, read by done() through thread:get.
ok, bad, ignored, flows = 0, 0, 0, 0
first_us, last_us = nil, nil
flow_us = {}

local workload, file_arg, tool
local fixed, states, next_state, mint_file
-- signup: the answers waiting to be sent, queue[head..tail - 1].
local queue, queue_head, queue_tail, started, next_flow = {}, 1, 1, {}, 1
local expect

local function signup_request()
  local entry = queue[queue_head]
  if entry then
    queue[queue_head] = nil
    queue_head = queue_head + 1
    return call(entry.id, "signup", entry.state, entry.asked)
  end
  local id = next_flow
  next_flow = next_flow + 1
  started[id] = now_us()
  return call(id, "signup")
end

local function signup_response(body)
  -- The envelope's own "id" is the first in the body, whatever the member
  -- order (ScreenLayer rewrites an ordered form's response with sorted
  -- envelope members).
  local id = tonumber(body:match('"id":(%d+)'))
  local asked = body:match('"inputRequests":{"(%w+)"')
  local state = state_of(body)
  if id and started[id] and asked and state and ANSWERS[asked] then
    queue[queue_tail] = { id = id, state = state, asked = asked }
    queue_tail = queue_tail + 1
    ok = ok + 1
  elseif id and started[id] and completed(body, "Team plan, 12 seats") then
    table.insert(flow_us, now_us() - started[id])
    started[id] = nil
    flows = flows + 1
    ok = ok + 1
  else
    refused(body)
  end
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  workload, file_arg, tool = args[1], args[2], args[3] or "ShipOrder"
  if file_arg == "-" then file_arg = nil end
  if workload == "plain" then
    fixed = call(1, "ping")
    expect = '"text":"pong"'
  elseif workload == "round1" or workload == "mint" then
    fixed = call(1, tool)
    if workload == "mint" then
      mint_file = assert(io.open(file_arg, "a"), "cannot write " .. tostring(file_arg))
      mint_file:setvbuf("line") -- nothing lost when wrk ends the thread
    end
  elseif workload == "round2" then
    fixed = call(2, tool, read_states(file_arg)[1], "ship")
    expect = "Shipped as 1Z999AA10123456784."
  elseif workload == "round2-fresh" then
    states = read_states(file_arg)
    next_state = 1
    expect = "Shipped as 1Z999AA10123456784."
  elseif workload == "task-mint" then
    fixed = task_call(1, tool)
    mint_file = assert(io.open(file_arg, "a"), "cannot write " .. tostring(file_arg))
    mint_file:setvbuf("line")
  elseif workload == "task-get" then
    fixed = task_get(3, read_states(file_arg)[1])
    expect = '"status":"input_required"'
  elseif workload == "task-update" then
    states = read_states(file_arg)
    next_state = 1
    expect = '"result":{"resultType":"complete"}'
  elseif workload ~= "signup" then
    error("unknown workload " .. tostring(workload))
  end
end

function request()
  first_us = first_us or now_us()
  if workload == "signup" then
    return signup_request()
  end
  if states then
    local state = states[next_state]
    next_state = next_state + 1
    if not state then
      -- Out of states: a ping, whose answer stops the thread (it is not
      -- counted, nor are the few calls still in flight then).
      return call(1, "ping")
    end
    if workload == "task-update" then
      return task_update(4, state)
    end
    return call(2, tool, state, "ship")
  end
  return fixed
end

function response(status, headers, body)
  last_us = now_us()
  if workload == "signup" then
    return signup_response(body)
  end
  if states and body:find('"text":"pong"', 1, true) then
    ignored = ignored + 1
    wrk.thread:stop()
  elseif status ~= 200 then
    refused(body)
  elseif expect then
    if body:find(expect, 1, true) then ok = ok + 1 else refused(body) end
  elseif workload == "task-mint" then
    local task = body:match('"taskId":"([%w_%-]+)"')
    if task and body:find('"resultType":"task"', 1, true) then
      ok = ok + 1
      mint_file:write(task, "\n")
    else
      refused(body)
    end
  else
    local state = state_of(body)
    if state and body:find('"resultType":"input_required"', 1, true) then
      ok = ok + 1
      if mint_file then mint_file:write(state, "\n") end
    else
      refused(body)
    end
  end
end

local function percentile(values, p)
  if #values == 0 then return nil end
  table.sort(values)
  local index = math.max(1, math.ceil(#values * p / 100))
  return values[index]
end

local function json_number(x)
  if x == nil then return "null" end
  return string.format("%.3f", x)
end

function done(summary, latency, requests)
  local total = { ok = 0, bad = 0, ignored = 0, flows = 0 }
  local first, last, flow_all = nil, nil, {}
  for _, thread in ipairs(threads) do
    for key in pairs(total) do
      total[key] = total[key] + (thread:get(key) or 0)
    end
    local f, l = thread:get("first_us"), thread:get("last_us")
    if f and (not first or f < first) then first = f end
    if l and (not last or l > last) then last = l end
    for _, v in ipairs(thread:get("flow_us") or {}) do table.insert(flow_all, v) end
  end
  local errors = summary.errors
  io.write(string.format(
    'LOADBENCH {"requests":%d,"duration_us":%d,"errors":{"connect":%d,"read":%d,"write":%d,'
      .. '"status":%d,"timeout":%d},"ok":%d,"bad":%d,"ignored":%d,"span_us":%s,'
      .. '"latency_us":{"p50":%s,"p90":%s,"p99":%s,"max":%s,"mean":%s},'
      .. '"flows":%d,"flow_us":{"p50":%s,"p99":%s}}\n',
    summary.requests, summary.duration, errors.connect, errors.read, errors.write,
    errors.status, errors.timeout, total.ok, total.bad, total.ignored,
    json_number(first and last and last - first),
    json_number(latency:percentile(50)), json_number(latency:percentile(90)),
    json_number(latency:percentile(99)), json_number(latency.max), json_number(latency.mean),
    total.flows, json_number(percentile(flow_all, 50)), json_number(percentile(flow_all, 99))))
end

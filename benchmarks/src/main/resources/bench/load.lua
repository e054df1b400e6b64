-- wrk script for the benchmark suite's load run. The suite prepends the constants:
-- KIND, DATA (a file of request data, one line each, split between the threads), THREADS, PACE_MS (0: as
-- fast as the server answers; otherwise each connection waits this long between requests), RUN (unique per
-- run, for new user ids), KEY (the Authorization header).

local threads = {}
local created = 0

function setup(thread)
  thread:set("tid", created)
  created = created + 1
  table.insert(threads, thread)
end

function init(args)
  lines = {}
  if DATA ~= "" then
    local i = 0
    for line in io.lines(DATA) do
      if i % THREADS == tid then
        local fields = {}
        for field in string.gmatch(line, "%S+") do table.insert(fields, field) end
        table.insert(lines, fields)
      end
      i = i + 1
    end
  end
  n = 0
  ok = 0
  bad = 0
  wrapped = 0
  badStatus = 0
  wrk.headers["Authorization"] = KEY
  wrk.headers["Content-Type"] = "application/json"
end

local function nextLine()
  if n > #lines then wrapped = wrapped + 1 end
  return lines[((n - 1) % #lines) + 1]
end

local function newUser()
  return RUN .. "-" .. tid .. "-" .. n
end

function request()
  n = n + 1
  if KIND == "noop" then
    return wrk.format("GET", "/actuator/health/liveness")
  elseif KIND == "send" then
    local user = newUser()
    return wrk.format("POST", "/v1/codes", nil, '{"userId":"' .. user
      .. '","codeType":"EMAIL_VERIFICATION","deliveryMethod":"EMAIL","deliveryTarget":"' .. user .. '@example.com"}')
  elseif KIND == "check" or KIND == "verify_numeric" then
    local f = nextLine()
    local path = KIND == "check" and "/v1/codes/check" or "/v1/codes/verify"
    return wrk.format("POST", path, nil, '{"code":"' .. f[2] .. '","userId":"' .. f[1]
      .. '","codeType":"EMAIL_VERIFICATION"}')
  elseif KIND == "verify_link" then
    local f = nextLine()
    return wrk.format("POST", "/v1/codes/verify", nil, '{"code":"' .. f[1] .. '"}')
  elseif KIND == "device_register" then
    local user = newUser()
    return wrk.format("POST", "/v1/devices", nil, '{"userId":"' .. user .. '","deviceId":"d-' .. user
      .. '","deviceType":"WEB"}')
  elseif KIND == "device_verify" then
    local f = nextLine()
    return wrk.format("POST", "/v1/devices/verify", nil, '{"deviceId":"' .. f[1] .. '","secret":"' .. f[2] .. '"}')
  elseif KIND == "rate_limits" then
    return wrk.format("GET", "/v1/users/" .. nextLine()[1] .. "/rate-limits")
  elseif KIND == "audit" then
    return wrk.format("GET", "/v1/users/" .. nextLine()[1] .. "/audit")
  end
end

local expected = { noop = 200, send = 202, check = 200, verify_numeric = 200, verify_link = 200,
  device_register = 201, device_verify = 200, rate_limits = 200, audit = 200 }
local mustBeValid = { check = true, verify_numeric = true, verify_link = true, device_verify = true }

function response(status, headers, body)
  if status == expected[KIND] and (not mustBeValid[KIND] or string.find(body, '"valid":true', 1, true)) then
    ok = ok + 1
  else
    bad = bad + 1
    badStatus = status
  end
end

if PACE_MS > 0 then
  function delay()
    return PACE_MS
  end
end

function done(summary, latency, requests)
  local good, wrong, reused, status = 0, 0, 0, 0
  for _, thread in ipairs(threads) do
    good = good + thread:get("ok")
    wrong = wrong + thread:get("bad")
    reused = reused + thread:get("wrapped")
    if thread:get("badStatus") ~= 0 then status = thread:get("badStatus") end
  end
  local e = summary.errors
  io.write(string.format("BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d max_us=%d ok=%d bad=%d reused=%d"
    .. " socket_errors=%d bad_status=%d\n", summary.requests, summary.duration, latency:percentile(50),
    latency:percentile(99), latency.max, good, wrong, reused, e.connect + e.read + e.write + e.timeout, status))
end

-- wrk script: rotate over requests read from a file, one a line.
-- Arguments (after wrk's --): FILE [METHOD]. With GET each line is a path;
-- with POST each line is a JSON body sent to the URL's path (MCP calls).
local items, method, i = {}, "GET", 0
local headers = {
  ["Content-Type"] = "application/json",
  ["Accept"] = "application/json, text/event-stream",
  ["MCP-Protocol-Version"] = "2025-06-18",
}

function init(args)
  for l in io.lines(args[1]) do
    if l ~= "" then items[#items + 1] = l end
  end
  method = args[2] or "GET"
  -- each thread starts somewhere else in the list
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
  i = math.random(#items)
end

function request()
  i = i % #items + 1
  if method == "GET" then
    return wrk.format("GET", items[i])
  end
  return wrk.format("POST", nil, headers, items[i])
end

-- wrk script: rotate over searches in Korean, English and pasted evidence.
local queries = {
  "/api/cases?q=kube-apiserver+OOM",
  "/api/cases?q=%EB%A1%A4%EC%95%84%EC%9B%83+%EC%A4%91+DNS+%EC%98%A4%EB%A5%98",
  "/api/cases?q=conntrack_allowance_exceeded",
  "/api/cases?q=Failed+to+delete+kube-dns+endpoint+connections&lang=en",
  "/api/cases?q=webhook+timeout&components=admission-webhook",
}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", queries[(i % #queries) + 1])
end

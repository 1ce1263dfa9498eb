#!/usr/bin/env bash
# Follows the recipes of docs/ARCHITECTURE.md ("How to add …") in a scratch
# clone of the current commit: adds a text field to the cases, an MCP tool,
# a page and a kubegap check exactly as the recipes say, counts the files each one changed
# against the recipe's count, then runs the tests of the scratch clone
# (go test ./...). A recipe that needs another file, or whose result fails
# a test, fails this check.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q --no-hardlinks "$src" "$tmp/repo"
cd "$tmp/repo"
# The build configuration of every go command below (see the tests at the end).
export CGO_ENABLED=0 GOFLAGS=-trimpath
git config user.email recipes@localhost
git config user.name recipes

# changed FILES... asserts that the working tree's changes since the last
# step are exactly those files, then commits them as one step.
changed() {
  local want got name=$1; shift
  want=$(printf '%s\n' "$@" | sort)
  got=$(git status --porcelain --untracked-files=all | cut -c4- | sort)
  if [ "$want" != "$got" ]; then
    echo "recipes: $name changed other files than its recipe names:"; diff <(echo "$want") <(echo "$got") || true
    exit 1
  fi
  echo "recipes: $name: $# files: $*"
  git add -A && git commit -qm "$name"
}

# add_words KEY KOREAN ENGLISH adds a key to the catalogue of words.
add_words() {
  python3 - "$1" "$2" "$3" <<'EOF'
import sys
key, ko, en = sys.argv[1:]
p = "internal/locale/words.go"
s = open(p).read()
anchor = "\treturn map[string]pair{\n"
assert anchor in s, "no catalogue map in " + p
s = s.replace(anchor, anchor + '\t\t%s: {%s, %s},\n' % tuple('"%s"' % x.replace('"', '\\"') for x in (key, ko, en)), 1)
open(p, "w").write(s)
EOF
}

# 1. A case text field (an optional prose section): the Case struct, its
# row in the sections table, the words of its heading, CASE-FORMAT.md.
python3 - <<'EOF'
import re
p = "incidentlib.go"
s = open(p).read()
m = re.search(r'\n(\tLessons +Text +`json:"lessons" yaml:"lessons" il:"required"`)\n', s)
assert m, "no Lessons field"
s = s.replace(m.group(0), "\n" + m.group(1) + '\n\tBackground Text `json:"background,omitempty" yaml:"background,omitempty"`\n', 1)
open(p, "w").write(s)
p = "sections.go"
s = open(p).read()
anchor = '\t{Key: "sources", Words: "sources",'
assert anchor in s, "no sources row"
s = s.replace(anchor, '\t{Key: "background", Words: "background", Kind: Prose, Search: "rest", Layout: LayoutProse, Anchor: "background", MCP: "background",\n\t\ttext: func(c *Case) []Text { return []Text{c.Background} }},\n' + anchor, 1)
open(p, "w").write(s)
p = "docs/CASE-FORMAT.md"
s = open(p).read()
anchor = "- `timeline.zone`:"
assert anchor in s, "no key list"
s = s.replace(anchor, "- `background`: what led up to the incident (optional);\n" + anchor, 1)
open(p, "w").write(s)
EOF
gofmt -w incidentlib.go sections.go
add_words background "배경" "Background"
changed "a case field" incidentlib.go sections.go internal/locale/words.go docs/CASE-FORMAT.md

# 2. An MCP tool: its file and its line in the list.
cat > internal/mcpserver/count_cases.go <<'EOF'
package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/mcptool"
	"github.com/incidentlib/incidentlib/internal/search"
)

func countCasesTool(s *Server) mcptool.Tool {
	return newTool(&mcp.Tool{
		Name:        "count_cases",
		Title:       "Count cases",
		Description: "Count the cases that match the filters, without listing them: use it to size a question before paging through list_incidents.",
		Annotations: mcptool.ReadOnly("Count cases"),
	}, incidentlib.Text{EN: "Count the cases that match filters.", KO: "조건에 맞는 사례 수를 셉니다."},
		[]mcptool.Example{{Args: map[string]any{"filters": map[string]any{"components": []string{"coredns"}}}, Want: "total"}},
		s.countCases)
}

// CountInput is the input of count_cases.
type CountInput struct {
	Filters *Filters `json:"filters,omitempty" jsonschema:"optional filters"`
}

// CountOutput is the answer of count_cases.
type CountOutput struct {
	Total int `json:"total"`
}

func (s *Server) countCases(ctx context.Context, req *mcp.CallToolRequest, in CountInput) (*mcp.CallToolResult, CountOutput, error) {
	v := args{}
	in.Filters.add(v)
	p, err := v.parse(search.RouteSearch)
	if err != nil {
		return nil, CountOutput{}, err
	}
	q := p.Query
	q.Limit, q.NoFacets = 1, true
	res, err := s.ix.Search(q)
	if err != nil {
		return nil, CountOutput{}, err
	}
	return nil, CountOutput{Total: res.Total}, nil
}
EOF
python3 - <<'EOF'
p = "internal/mcpserver/tools.go"
s = open(p).read()
anchor = "\t\tsimilarIncidentsTool(s),\n"
assert anchor in s, "no tool list"
s = s.replace(anchor, anchor + "\t\tcountCasesTool(s),\n", 1)
open(p, "w").write(s)
EOF
changed "an MCP tool" internal/mcpserver/count_cases.go internal/mcpserver/tools.go

# 3. A page: its handler and its line in the page table, its template, its
# words.
python3 - <<'EOF'
p = "internal/web/pages.go"
s = open(p).read()
anchor = "\t{template: \"notfound\"},\n"
assert anchor in s, "no page table"
s = s.replace(anchor, '\t{route: "GET /about", template: "about", handler: func(s *Site) handlerFunc { return s.aboutPage }, sitemap: true},\n' + anchor, 1)
s += '''
func (s *Site) aboutPage(w http.ResponseWriter, r *http.Request, lang string) error {
	return s.render(w, r, lang, "about", &pageData{
		Title:       locale.T(lang, "about.title"),
		Description: locale.T(lang, "about.intro"),
		Data:        struct{ Cases int }{s.ix.Len()},
	})
}
'''
if '"github.com/incidentlib/incidentlib/internal/locale"' not in s:
    s = s.replace('import (\n', 'import (\n\t"github.com/incidentlib/incidentlib/internal/locale"\n', 1)
open(p, "w").write(s)
EOF
gofmt -w internal/web/pages.go
cat > internal/web/templates/about.tmpl <<'EOF'
{{define "content"}}
<article class="wrap" aria-labelledby="about-h">
  <h1 id="about-h">{{t "about.title"}}</h1>
  <p>{{t "about.intro"}}</p>
  <p>{{n "about.cases" .Data.Cases}}</p>
</article>
{{end}}
EOF
add_words about.title "이 도서관에 대하여" "About this library"
add_words about.intro "공개된 인프라 장애 보고서를 한국어와 영어로 정리한 도서관입니다." "A library of public infrastructure incident write-ups, in Korean and English."
add_words about.cases.one "" "%d case"
add_words about.cases.other "사례 %d건" "%d cases"
changed "a page" internal/web/pages.go internal/web/templates/about.tmpl internal/locale/words.go

# 4. A kubegap check: the check and its line in its file's list, its
# fixture archive, then go generate ./internal/kubegap/checks (docs/checks.md,
# with the check index the case pages read, is derived from the registry).
python3 - <<'EOF'
p = "internal/kubegap/checks/images.go"
s = open(p).read()
anchor = "\t\timageMutableTag(),\n"
assert anchor in s, "no imageMutableTag in the list of images.go"
s = s.replace(anchor, anchor + "\t\timagePullNever(),\n", 1)
s += '''
func imagePullNever() *Check {
	c := &Check{
		ID:       "image-pull-never",
		Severity: Low,
		Title:    incidentlib.Text{EN: "Container never pulls its image", KO: "컨테이너가 이미지를 받지 않는다"},
		Remediation: incidentlib.Text{
			EN: "Let the kubelet pull the image (IfNotPresent).",
			KO: "kubelet 이 이미지를 받게 두세요(IfNotPresent).",
		},
		LooksAt: incidentlib.Text{
			EN: "The pull policy of every workload's containers.",
			KO: "모든 워크로드 컨테이너의 pull 정책을 봅니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Which images the nodes hold.",
			KO: "노드가 가진 이미지는 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{allWorkloads},
		Citations: []Citation{{Case: "IL-0744",
			Quote:   "Each restart needed the service's server image to be pulled again, but the primary image registry enforced restrictive rate limits and refused the pulls, so the services could not come back.",
			QuoteKO: "재시작할 때마다 서비스의 서버 이미지를 다시 받아야 했는데, 주 이미지 레지스트리가 엄격한 속도 제한을 걸어 풀을 거부했고 서비스는 다시 올라오지 못했다."}},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			for _, ctr := range allContainers(w.Template) {
				if ctr.ImagePullPolicy == corev1.PullNever {
					out = append(out, c.finding(0, w.Ref,
						fmt.Sprintf("container %s never pulls its image", ctr.Name),
						fmt.Sprintf("컨테이너 %s 는 이미지를 받지 않습니다", ctr.Name)))
				}
			}
		}
		return out
	}
	return c
}
'''
open(p, "w").write(s)
EOF
gofmt -w internal/kubegap/checks/images.go
a=internal/kubegap/checks/testdata/image-pull-never.txtar
# One archive: the same Deployment four times; pulling Never fails,
# IfNotPresent and Always pass.
for f in fail:Never fail-2:Never pass:IfNotPresent pass-2:Always; do
  name=${f%%:*} policy=${f#*:}
  printf -- '-- %s.yaml --\n' "$name"
  cat <<EOF
apiVersion: apps/v1
kind: Deployment
metadata: {name: $name, namespace: shop}
spec:
  selector: {matchLabels: {app: $name}}
  template:
    metadata: {labels: {app: $name}}
    spec:
      containers:
      - {name: web, image: "registry.example.org/web:1.2.3", imagePullPolicy: $policy}
EOF
  if [ "$policy" = Never ]; then
    printf '# expect: low Deployment shop/%s line 1 cases IL-0744\n# message: container web never pulls its image\n' "$name"
  fi
done > "$a"
go generate ./internal/kubegap/checks
changed "a kubegap check" internal/kubegap/checks/images.go "$a" docs/checks.md
grep -q '`image-pull-never`' docs/checks.md || { echo "recipes: docs/checks.md lacks the new check"; exit 1; }
grep -q '{"id":"image-pull-never"' docs/checks.md || { echo "recipes: the check index at the end of docs/checks.md lacks the new check"; exit 1; }

# The four together pass the tests of the scratch clone. They are built as
# deploy/krew/package.sh and the kube-apiserver build compile (CGO_ENABLED=0
# -trimpath, without the race detector, exported at the top so that go generate
# and the tests' own "go build" of a command use it too), so that the
# Kubernetes and standard library packages come from the build cache those
# builds filled, and the tests run at full speed: the race detector
# runs on the commit itself in CI's test step, and the recipes change no
# code that runs concurrently. (Run under -race, as CI's test step builds,
# this check took 323 s cold and 347 s warm, with the processors 91% busy,
# nearly all of it running the tests under the race detector.) Of kubegap's packages, its MCP tools (which answer get_incident
# with the case's sections) and its checks (the new check's fixtures,
# citations and registry) are tested: the recipes reach none of the rest,
# and CI's test step runs them on the commit itself.
# go test runs go vet's checks on each package it builds. Left out here, and
# run by CI's test step on the commit itself: the tests of a server's
# process (killed during writes, stopped under load, restarted under a
# database, replicas), the text analyser's agreement with Bleve's chain,
# and the crawl of every page; none of them reads a table a recipe adds
# to, and the new page is fetched by TestPagesFromOneDeclaration.
mapfile -t pkgs < <(go list ./... | grep -v -e '/internal/kubegap/' -e '/cmd/kubegap$'; go list ./internal/kubegap/mcptools ./internal/kubegap/checks)
skip='^(TestKillDuringWrites|TestSIGTERMDuringLoad|TestPostgresRestartUnderLoad|TestTwoServeProcessesOnPostgres|TestReplicasSeeEachOthersWrites|TestCrawl|TestFastAnalyzerMatchesAnalyzer|TestSequenceMatchesAnalyzer)$'
# GOGC=400 for the compiler, vet and linker that go test runs, as CI's own
# test step does, and the tests themselves without it (-exec "env -u GOGC").
GOGC=400 go test -exec 'env -u GOGC' -ldflags=-w -skip "$skip" "${pkgs[@]}"
echo "recipes: a case field (4 files), an MCP tool (2), a page (3) and a kubegap check (3: the check, its fixture archive, the generated docs/checks.md) added by their recipes; go test passes on ${#pkgs[@]} packages: ok"

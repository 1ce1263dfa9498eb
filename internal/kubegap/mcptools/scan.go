package mcptools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/live"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
	"github.com/incidentlib/incidentlib/internal/kubegap/report"
	"github.com/incidentlib/incidentlib/internal/mcptool"
)

// scanTool is the scan tool: manifests, a chart, a kustomization or the
// live cluster, read-only, one page of findings at a time.
func scanTool(o Options) mcptool.Tool {
	return newTool(&mcp.Tool{
		Name:  "scan",
		Title: "Scan Kubernetes objects for incident-grounded gaps",
		Description: "Reads manifests (text or paths), a Helm chart (chart, values, set, release, namespace), a kustomization (kustomize) or the live cluster, read-only, and returns findings with the file, line and chart template of their object; each cites the public incidents behind its check. " +
			"The answer says how many files and objects were read and skipped (and why), how many checks were evaluated (and why not), which of them only partially (partial: the kinds they could not list, and what that means), and lists the input problems (what could not be read, at FILE:LINE, and what to do; 100 at most). " +
			"Findings are paged: 50 by default, at most 200 per call (limit); pass next_offset as offset for the next page; min_severity filters. " +
			"Live scans list only the kinds the checks need, paged. A scan that read no Kubernetes object is an error.",
		Annotations: readOnly("Scan for gaps"),
	}, incidentlib.Text{
		EN: "Scan manifests, a Helm chart, a kustomization or the live cluster, read-only, for the gaps that public incidents exposed.",
		KO: "매니페스트, Helm 차트, kustomization 또는 실행 중인 클러스터를 읽기만 하면서, 공개된 장애 사례가 드러낸 빈틈을 찾습니다.",
	}, []mcptool.Example{
		{Args: map[string]any{"manifests": exampleManifest}, Want: "no-memory-limit"},
		{Args: map[string]any{"manifests": exampleManifest, "lang": "ko", "min_severity": "medium"}, Want: "no-memory-limit"},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ScanInput) (*mcp.CallToolResult, ScanOutput, error) {
		out, err := scan(ctx, o, in)
		return nil, out, err
	}, scanBounds)
}

// exampleManifest is the scan tool's example input: a Deployment whose
// container has no memory limit, in a namespace with no default.
const exampleManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        resources:
          requests: {cpu: 100m, memory: 128Mi}
`

// Paging of the scan tool's findings, to keep an answer within an agent's
// context: DefaultLimit findings unless limit asks for more, MaxFindings at
// most.
const (
	DefaultLimit = 50
	MaxFindings  = 200
	// MaxProblems caps the input problems one answer carries.
	MaxProblems = 100
)

// ScanInput is the scan tool's input.
type ScanInput struct {
	Manifests   string   `json:"manifests,omitempty" jsonschema:"Kubernetes YAML or JSON to scan (multi-document, kind: List and Helm output work). Leave empty with live true to scan the cluster."`
	Paths       []string `json:"paths,omitempty" jsonschema:"files or folders of manifests on the machine running kubegap"`
	Live        bool     `json:"live,omitempty" jsonschema:"scan the live cluster through the kubeconfig, read-only"`
	Chart       string   `json:"chart,omitempty" jsonschema:"a Helm chart (folder or .tgz) on the machine running kubegap, rendered client-side as helm template does, then scanned; namespace is the release namespace"`
	Values      []string `json:"values,omitempty" jsonschema:"chart: values files, later ones winning (helm --values)"`
	Set         []string `json:"set,omitempty" jsonschema:"chart: key=value overrides, as helm --set (applied last)"`
	Release     string   `json:"release,omitempty" jsonschema:"chart: the release name (default release-name)"`
	Kustomize   string   `json:"kustomize,omitempty" jsonschema:"a kustomization folder on the machine running kubegap (local files only), built as kubectl kustomize does, then scanned"`
	Context     string   `json:"context,omitempty" jsonschema:"kubeconfig context for a live scan"`
	Namespace   string   `json:"namespace,omitempty" jsonschema:"live: limit namespaced kinds to this namespace; manifests: the namespace of objects that name none, as kubectl apply -n (default: default)"`
	KubeVersion string   `json:"kube_version,omitempty" jsonschema:"manifests: the Kubernetes release to read for, such as 1.29 (default: the newest); API versions it no longer serves are problems"`
	Checks      []string `json:"checks,omitempty" jsonschema:"only these check ids"`
	MinSeverity string   `json:"min_severity,omitempty" jsonschema:"only findings at or above this severity: low (default), medium or high"`
	Offset      int      `json:"offset,omitempty" jsonschema:"skip this many findings (from next_offset of the previous answer)"`
	Limit       int      `json:"limit,omitempty" jsonschema:"findings to return: 50 by default, 200 at most"`
	Lang        string   `json:"lang,omitempty" jsonschema:"en (default) or ko"`
}

// ScanOutput is the scan tool's answer: the JSON report, one page of its
// findings.
type ScanOutput struct {
	report.Report
	// TotalFindings is the number of findings at or above min_severity.
	TotalFindings int `json:"total_findings"`
	Offset        int `json:"offset"`
	Limit         int `json:"limit"`
	// NextOffset is where the next page starts; absent on the last page.
	NextOffset int `json:"next_offset,omitempty"`
	// ProblemsTotal is the number of input problems; at most MaxProblems
	// are listed.
	ProblemsTotal int `json:"problems_total"`
}

// scanBounds completes the scan tool's input schema with its bounds.
func scanBounds(s *jsonschema.Schema) {
	f := func(v float64) *float64 { return &v }
	if p := s.Properties["limit"]; p != nil {
		p.Minimum, p.Maximum = f(1), f(MaxFindings)
	}
	if p := s.Properties["offset"]; p != nil {
		p.Minimum, p.Maximum = f(0), nil
	}
	if p := s.Properties["min_severity"]; p != nil {
		p.Enum = []any{"low", "medium", "high"}
	}
}

func scan(ctx context.Context, o Options, in ScanInput) (ScanOutput, error) {
	l, err := lang(in.Lang)
	if err != nil {
		return ScanOutput{}, err
	}
	minSev, limit, err := scanPaging(in)
	if err != nil {
		return ScanOutput{}, err
	}
	cs, err := kubegap.Select(in.Checks, nil)
	if err != nil {
		return ScanOutput{}, err
	}
	if err := oneInput(in); err != nil {
		return ScanOutput{}, err
	}
	var res *kubegap.Result
	switch {
	case in.Chart != "" || in.Kustomize != "":
		res, err = scanRendered(ctx, o, in, cs)
	case in.Live:
		res, err = scanLive(ctx, o, in, cs)
	case in.Manifests != "" || len(in.Paths) > 0:
		res, err = scanManifests(o, in, cs)
	default:
		err = errors.New("nothing to scan: pass manifests, paths, chart, kustomize, or live: true")
	}
	if err != nil {
		return ScanOutput{}, err
	}
	return scanPage(res, l, in.Offset, limit, minSev), nil
}

// scanPaging reads the answer's bounds: the least severity, and how many
// findings a page holds.
func scanPaging(in ScanInput) (checks.Severity, int, error) {
	minSev := checks.Low
	if in.MinSeverity != "" {
		var err error
		if minSev, err = checks.ParseSeverity(in.MinSeverity); err != nil {
			return minSev, 0, fmt.Errorf("min_severity: %w", err)
		}
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = DefaultLimit
	case limit < 0 || limit > MaxFindings:
		return minSev, 0, fmt.Errorf("limit %d: give 1 to %d", limit, MaxFindings)
	}
	if in.Offset < 0 {
		return minSev, 0, fmt.Errorf("offset %d: give 0 or more", in.Offset)
	}
	return minSev, limit, nil
}

// oneInput refuses a call that names more than one input, or a chart's
// options without a chart.
func oneInput(in ScanInput) error {
	inputs := 0
	for _, given := range []bool{in.Live, in.Manifests != "" || len(in.Paths) > 0, in.Chart != "", in.Kustomize != ""} {
		if given {
			inputs++
		}
	}
	if inputs > 1 {
		return errors.New("give one input: manifests/paths, chart, kustomize or live")
	}
	if in.Chart == "" && (len(in.Values) > 0 || len(in.Set) > 0 || in.Release != "") {
		return errors.New("values, set and release apply to chart only")
	}
	return nil
}

// scanRendered renders a chart or builds a kustomization, as the command
// line does, and evaluates what it gives.
func scanRendered(ctx context.Context, o Options, in ScanInput, cs []*checks.Check) (*kubegap.Result, error) {
	if !o.AllowFiles {
		return nil, errors.New("this server does not read files, so it cannot render charts or kustomizations; render them yourself (helm template, kubectl kustomize) and pass the output as manifests")
	}
	kv, err := kubeVersion(in.KubeVersion)
	if err != nil {
		return nil, err
	}
	inv, input, problems, err := ReadRendered(ctx, Render{Chart: in.Chart, Values: in.Values, Set: in.Set, Release: in.Release, Kustomize: in.Kustomize},
		cs, kubegap.ReadOptions{Namespace: in.Namespace, NamespaceSet: in.Namespace != "", KubeVersion: kv})
	if err != nil {
		return nil, err
	}
	if len(cs) > 0 {
		if err := input.NothingChecked(); err != nil {
			return nil, err
		}
	}
	res := kubegap.Evaluate(inv, cs, nil, true)
	res.Input, res.Problems = input, problems
	return res, nil
}

// scanLive reads the cluster, read-only, through the command line's live
// scan.
func scanLive(ctx context.Context, o Options, in ScanInput, cs []*checks.Check) (*kubegap.Result, error) {
	if o.LiveScan == nil {
		return nil, errors.New("live scans are not available in this server")
	}
	kctx := in.Context
	if kctx == "" {
		kctx = o.Context
	}
	return o.LiveScan(ctx, live.Options{Kubeconfig: o.Kubeconfig, Context: kctx, Namespace: in.Namespace, UserAgent: "kubegap-mcp/" + o.Version}, 5*time.Minute, cs, nil, false)
}

// scanManifests reads the manifests given as text and the paths, and
// evaluates them; what standard input was is called manifests, the
// argument's name.
func scanManifests(o Options, in ScanInput, cs []*checks.Check) (*kubegap.Result, error) {
	var paths []string
	if len(in.Paths) > 0 {
		if !o.AllowFiles {
			return nil, errors.New("this server does not read files; pass the manifests as text")
		}
		paths = append(paths, in.Paths...)
	}
	if in.Manifests != "" {
		paths = append(paths, "-")
	}
	kv, err := kubeVersion(in.KubeVersion)
	if err != nil {
		return nil, err
	}
	inv, input, problems, rerr := kubegap.ReadInput(paths, strings.NewReader(in.Manifests), cs, kubegap.ReadOptions{Namespace: in.Namespace, NamespaceSet: in.Namespace != "", KubeVersion: kv})
	if rerr != nil {
		return nil, errors.New(strings.ReplaceAll(rerr.Error(), manifest.StdinName, "manifests"))
	}
	if len(cs) > 0 {
		if err := input.NothingChecked(); err != nil {
			return nil, errors.New(strings.ReplaceAll(err.Error(), "standard input", "manifests"))
		}
	}
	res := kubegap.Evaluate(inv, cs, nil, true)
	res.Input, res.Problems = input, problems
	if input != nil {
		for i := range res.Problems {
			if res.Problems[i].File == manifest.StdinName {
				res.Problems[i].File = "manifests"
			}
		}
	}
	return res, nil
}

// scanPage is the answer: the report in lang, its findings of minSev or
// more, a page of them from offset, and at most MaxProblems problems.
func scanPage(res *kubegap.Result, l string, offset, limit int, minSev checks.Severity) ScanOutput {
	out := ScanOutput{Report: report.Build(res, l), Offset: offset, Limit: limit}
	kept := out.Findings[:0]
	for _, f := range out.Findings {
		if sev, _ := checks.ParseSeverity(f.Severity); sev >= minSev {
			if f.File == manifest.StdinName {
				f.File = "manifests"
			}
			kept = append(kept, f)
		}
	}
	out.TotalFindings = len(kept)
	start := min(offset, len(kept))
	end := min(start+limit, len(kept))
	out.Findings = kept[start:end]
	if end < len(kept) {
		out.NextOffset = end
	}
	for i := range out.Problems {
		out.Problems[i].Message = toolWords(out.Problems[i].Message)
	}
	out.ProblemsTotal = len(out.Problems)
	if len(out.Problems) > MaxProblems {
		out.Problems = out.Problems[:MaxProblems]
	}
	return out
}

func kubeVersion(v string) (manifest.KubeVersion, error) {
	if v == "" {
		return manifest.NewestKube, nil
	}
	kv, err := manifest.ParseKubeVersion(v)
	if err != nil {
		return kv, fmt.Errorf("kube_version: %w", err)
	}
	return kv, nil
}

// cliWords are the command-line flags that problems name, and the scan
// tool's arguments that do the same.
var cliWords = strings.NewReplacer("use --chart ", "scan it with chart: ", "use -k ", "scan it with kustomize: ", "(--chart DIR, -k DIR,", "(chart, kustomize,", "--chart DIR", "chart", "--kube-version", "kube_version")

// toolWords says a problem's advice in the scan tool's terms.
func toolWords(msg string) string { return cliWords.Replace(msg) }

// Package mcptools serves kubegap over the Model Context Protocol on stdio,
// for coding agents: scan, list_checks, explain_check and get_incident, all
// read-only.
package mcptools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/live"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
	"github.com/incidentlib/incidentlib/internal/kubegap/render"
	"github.com/incidentlib/incidentlib/internal/kubegap/report"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/mcpcase"
	"github.com/incidentlib/incidentlib/internal/mcpschema"
)

// Options configures the server.
type Options struct {
	Version    string
	Corpus     *corpus.Corpus
	Kubeconfig string
	Context    string
	// AllowFiles lets the scan tool read paths on this machine.
	AllowFiles bool
	// LiveScan runs a live scan (the CLI's), so that both share one code path.
	LiveScan func(ctx context.Context, o live.Options, timeout time.Duration, cs []*checks.Check, cfg *kubegap.Config, annotations bool) (*kubegap.Result, error)
}

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

// Instructions tell the host what the server is for and how to use it.
const Instructions = "kubegap checks Kubernetes objects (manifests or a live cluster, read-only) for gaps that public incidents exposed; every finding cites its cases (get_incident tells them). " +
	"Call scan with manifests (text), paths, chart (with values, set, release, namespace), kustomize, or live: true. Read the answer's input (files and objects read, skipped and why) and checks (evaluated, partially evaluated, or not) before calling a scan clean: " +
	"problems lists what could not be read, at FILE:LINE, with what to do (a Helm chart goes in chart, a kustomize folder in kustomize). " +
	"Findings come a page at a time (limit, at most 200; next_offset for more; min_severity to narrow). explain_check says what a check looks at and how to fix what it finds."

// scanSchema is the scan tool's input schema, with its bounds.
func scanSchema() *jsonschema.Schema {
	s := mcpschema.Input[ScanInput]()
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
	return s
}

// ListInput is list_checks' input.
type ListInput struct {
	Lang string `json:"lang,omitempty" jsonschema:"en (default) or ko"`
}

// ListOutput is list_checks' answer.
type ListOutput struct {
	Checks []report.CatalogueEntry `json:"checks"`
}

// ExplainInput is explain_check's input.
type ExplainInput struct {
	ID   string `json:"id" jsonschema:"check id, as list_checks gives it"`
	Lang string `json:"lang,omitempty" jsonschema:"en (default) or ko"`
}

// IncidentInput is get_incident's input.
type IncidentInput struct {
	ID   string `json:"id" jsonschema:"case id such as IL-0049"`
	Lang string `json:"lang,omitempty" jsonschema:"en (default) or ko"`
	View string `json:"view,omitempty" jsonschema:"full (default): every section; summary: title, summary, trigger, terms and sources only"`
}

// Incident is get_incident's answer: the case in one language, as
// incidentlib's MCP gives it, and the kubegap checks that cite it.
type Incident struct {
	mcpcase.Incident
	CitedBy []string `json:"cited_by" jsonschema:"the kubegap checks that cite the case"`
}

// MarshalJSON writes the case as mcpcase.Incident does, then cited_by.
func (inc Incident) MarshalJSON() ([]byte, error) {
	b, err := inc.Incident.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return mcpcase.AppendField(b, "cited_by", inc.CitedBy)
}

// OutputSchema is the schema of Incident, with the sections the table
// gives mcpcase.Incident.
func (Incident) OutputSchema() (*jsonschema.Schema, error) { return mcpcase.Schema[Incident]() }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func lang(l string) (string, error) { return locale.ParseOr(l, "en") }

func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &f, IdempotentHint: true, Title: title}
}

// outputSchema is the schema of a tool's answers, inferred from T, with no
// type union with null (which strict hosts refuse).
func outputSchema[T any]() *jsonschema.Schema {
	return mcpschema.Output(must(jsonschema.For[T](nil)))
}

// NewServer builds the MCP server with its four tools.
func NewServer(o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "kubegap", Title: "kubegap", Version: o.Version}, &mcp.ServerOptions{Instructions: Instructions})

	mcp.AddTool(s, &mcp.Tool{
		Name:  "scan",
		Title: "Scan Kubernetes objects for incident-grounded gaps",
		Description: "Reads manifests (text or paths), a Helm chart (chart, values, set, release, namespace), a kustomization (kustomize) or the live cluster, read-only, and returns findings with the file, line and chart template of their object; each cites the public incidents behind its check. " +
			"The answer says how many files and objects were read and skipped (and why), how many checks were evaluated (and why not), which of them only partially (partial: the kinds they could not list, and what that means), and lists the input problems (what could not be read, at FILE:LINE, and what to do; 100 at most). " +
			"Findings are paged: 50 by default, at most 200 per call (limit); pass next_offset as offset for the next page; min_severity filters. " +
			"Live scans list only the kinds the checks need, paged. A scan that read no Kubernetes object is an error.",
		Annotations:  readOnly("Scan for gaps"),
		InputSchema:  scanSchema(),
		OutputSchema: outputSchema[ScanOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ScanInput) (*mcp.CallToolResult, ScanOutput, error) {
		out, err := scan(ctx, o, in)
		return nil, out, err
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:         "list_checks",
		Title:        "List kubegap's checks",
		Description:  "The catalogue: id, severity, title, the kinds each check reads and the incident ids that ground it.",
		Annotations:  readOnly("List checks"),
		InputSchema:  mcpschema.Input[ListInput](),
		OutputSchema: outputSchema[ListOutput](),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
		if _, err := lang(in.Lang); err != nil {
			return nil, ListOutput{}, err
		}
		return nil, ListOutput{Checks: report.Catalogue(checks.All())}, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:         "explain_check",
		Title:        "Explain a check",
		Description:  "What a check looks at, why (the summaries of the incidents it cites), how to fix what it finds, and what it cannot see.",
		Annotations:  readOnly("Explain a check"),
		InputSchema:  mcpschema.Input[ExplainInput](),
		OutputSchema: outputSchema[report.Explanation](),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in ExplainInput) (*mcp.CallToolResult, report.Explanation, error) {
		l, err := lang(in.Lang)
		if err != nil {
			return nil, report.Explanation{}, err
		}
		c := checks.Get(in.ID)
		if c == nil {
			return nil, report.Explanation{}, fmt.Errorf("unknown check %q; list_checks gives the ids", in.ID)
		}
		return nil, report.Explain(c, o.Corpus.Case, l), nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:         "get_incident",
		Title:        "Get an incident case",
		Description:  "One case of the incident library by id (IL-NNNN): summary, trigger, lessons, remediation, sources, and the kubegap checks that cite it.",
		Annotations:  readOnly("Get an incident"),
		InputSchema:  mcpschema.Input[IncidentInput](),
		OutputSchema: mcpschema.Output(must(Incident{}.OutputSchema())),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in IncidentInput) (*mcp.CallToolResult, Incident, error) {
		l, err := lang(in.Lang)
		if err != nil {
			return nil, Incident{}, err
		}
		if !mcpcase.ValidView(in.View) {
			return nil, Incident{}, fmt.Errorf("view %q is not known; use full or summary", in.View)
		}
		k := o.Corpus.Case(strings.ToUpper(strings.TrimSpace(in.ID)))
		if k == nil {
			return nil, Incident{}, fmt.Errorf("no case %q in the corpus", in.ID)
		}
		inc := Incident{Incident: mcpcase.Project(k, l, in.View, ""), CitedBy: []string{}}
		for _, c := range checks.All() {
			for _, id := range c.Cases {
				if id == k.ID {
					inc.CitedBy = append(inc.CitedBy, c.ID)
				}
			}
		}
		return nil, inc, nil
	})
	return s
}

func scan(ctx context.Context, o Options, in ScanInput) (ScanOutput, error) {
	l, err := lang(in.Lang)
	if err != nil {
		return ScanOutput{}, err
	}
	minSev := checks.Low
	if in.MinSeverity != "" {
		if minSev, err = checks.ParseSeverity(in.MinSeverity); err != nil {
			return ScanOutput{}, fmt.Errorf("min_severity: %w", err)
		}
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = DefaultLimit
	case limit < 0 || limit > MaxFindings:
		return ScanOutput{}, fmt.Errorf("limit %d: give 1 to %d", limit, MaxFindings)
	}
	if in.Offset < 0 {
		return ScanOutput{}, fmt.Errorf("offset %d: give 0 or more", in.Offset)
	}
	cs, err := kubegap.Select(in.Checks, nil)
	if err != nil {
		return ScanOutput{}, err
	}
	var res *kubegap.Result
	inputs := 0
	for _, given := range []bool{in.Live, in.Manifests != "" || len(in.Paths) > 0, in.Chart != "", in.Kustomize != ""} {
		if given {
			inputs++
		}
	}
	if inputs > 1 {
		return ScanOutput{}, errors.New("give one input: manifests/paths, chart, kustomize or live")
	}
	if in.Chart == "" && (len(in.Values) > 0 || len(in.Set) > 0 || in.Release != "") {
		return ScanOutput{}, errors.New("values, set and release apply to chart only")
	}
	switch {
	case in.Chart != "" || in.Kustomize != "":
		if !o.AllowFiles {
			return ScanOutput{}, errors.New("this server does not read files, so it cannot render charts or kustomizations; render them yourself (helm template, kubectl kustomize) and pass the output as manifests")
		}
		kv, err := kubeVersion(in.KubeVersion)
		if err != nil {
			return ScanOutput{}, err
		}
		inv, input, problems, err := ReadRendered(ctx, Render{Chart: in.Chart, Values: in.Values, Set: in.Set, Release: in.Release, Kustomize: in.Kustomize},
			cs, kubegap.ReadOptions{Namespace: in.Namespace, NamespaceSet: in.Namespace != "", KubeVersion: kv})
		if err != nil {
			return ScanOutput{}, err
		}
		if len(cs) > 0 {
			if err := input.NothingChecked(); err != nil {
				return ScanOutput{}, err
			}
		}
		res = kubegap.Evaluate(inv, cs, nil, true)
		res.Input, res.Problems = input, problems
	case in.Live:
		if o.LiveScan == nil {
			return ScanOutput{}, errors.New("live scans are not available in this server")
		}
		kctx := in.Context
		if kctx == "" {
			kctx = o.Context
		}
		res, err = o.LiveScan(ctx, live.Options{Kubeconfig: o.Kubeconfig, Context: kctx, Namespace: in.Namespace, UserAgent: "kubegap-mcp/" + o.Version}, 5*time.Minute, cs, nil, false)
		if err != nil {
			return ScanOutput{}, err
		}
	case in.Manifests != "" || len(in.Paths) > 0:
		var paths []string
		if len(in.Paths) > 0 {
			if !o.AllowFiles {
				return ScanOutput{}, errors.New("this server does not read files; pass the manifests as text")
			}
			paths = append(paths, in.Paths...)
		}
		if in.Manifests != "" {
			paths = append(paths, "-")
		}
		kv, err := kubeVersion(in.KubeVersion)
		if err != nil {
			return ScanOutput{}, err
		}
		inv, input, problems, rerr := kubegap.ReadInput(paths, strings.NewReader(in.Manifests), cs, kubegap.ReadOptions{Namespace: in.Namespace, NamespaceSet: in.Namespace != "", KubeVersion: kv})
		if rerr != nil {
			return ScanOutput{}, errors.New(strings.ReplaceAll(rerr.Error(), manifest.StdinName, "manifests"))
		}
		if len(cs) > 0 {
			if err := input.NothingChecked(); err != nil {
				return ScanOutput{}, errors.New(strings.ReplaceAll(err.Error(), "standard input", "manifests"))
			}
		}
		res = kubegap.Evaluate(inv, cs, nil, true)
		res.Input, res.Problems = input, problems
		if input != nil {
			for i := range res.Problems {
				if res.Problems[i].File == manifest.StdinName {
					res.Problems[i].File = "manifests"
				}
			}
		}
	default:
		return ScanOutput{}, errors.New("nothing to scan: pass manifests, paths, chart, kustomize, or live: true")
	}
	out := ScanOutput{Report: report.Build(res, l), Offset: in.Offset, Limit: limit}
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
	start := min(in.Offset, len(kept))
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
	return out, nil
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

// Render names a chart to render (with its values, set values and release
// name) or a kustomization to build.
type Render struct {
	Chart     string
	Values    []string
	Set       []string
	Release   string
	Kustomize string
}

// ReadRendered renders the chart or builds the kustomization, then reads
// its objects as a file scan does (problems, counts, namespaces as o gives
// them, removed API versions), each located at its template or source
// file. The command line and the scan tool share it.
func ReadRendered(ctx context.Context, r Render, cs []*checks.Check, o kubegap.ReadOptions) (*inventory.Inventory, *kubegap.Input, []manifest.Problem, error) {
	var docs []render.Doc
	var what string
	var err error
	kv := o.KubeVersion
	if kv.Minor == 0 {
		kv = manifest.NewestKube
	}
	switch {
	case r.Chart != "" && r.Kustomize != "":
		return nil, nil, nil, errors.New("a chart and a kustomization cannot be scanned together: scan one at a time")
	case r.Chart != "":
		what = "chart " + r.Chart
		docs, err = render.Chart(ctx, render.ChartOptions{Chart: r.Chart, ValuesFiles: r.Values, Set: r.Set,
			Release: r.Release, Namespace: o.Namespace, KubeVersion: "v" + kv.String() + ".0"})
	default:
		what = "kustomization " + r.Kustomize
		docs, err = render.Kustomize(r.Kustomize)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if len(docs) == 0 {
		return nil, nil, nil, fmt.Errorf("the %s rendered no Kubernetes object: check its values and conditions", what)
	}
	o.KubeVersion = kv
	o.Streams = append(o.Streams, render.Streams(docs)...)
	return kubegap.ReadInput(nil, nil, cs, o)
}

// ServeStdio runs the server on the given stdio streams until the client
// disconnects or ctx ends. A line that is not JSON, or not a JSON-RPC
// message, is answered with a JSON-RPC error (-32700 parse error, -32600
// invalid request) and the server reads on: one bad line from a host must
// not end the session.
//
// At the end of stdin the server answers every request it accepted before
// it stops (a host, or a shell, may pipe a file of requests and close its
// end at once).
func ServeStdio(ctx context.Context, o Options, stdin io.Reader, stdout io.Writer) error {
	s := NewServer(o)
	inFlight := newInflight()
	w := &lockedWriter{w: stdout, sent: inFlight.answered}
	t := &mcp.IOTransport{Reader: io.NopCloser(&lineFilter{r: bufio.NewReaderSize(stdin, 64<<10), reply: w, ctx: ctx, inFlight: inFlight}), Writer: nopWriteCloser{w}}
	err := s.Run(ctx, t)
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "EOF")) {
		return nil
	}
	return err
}

// lockedWriter keeps the filter's error answers from interleaving with the
// server's messages (each is one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
	// sent is told of each message written.
	sent func([]byte)
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if l.sent != nil {
		l.sent(p)
	}
	return n, err
}

// inflight counts the requests read and not answered yet, by id.
type inflight struct {
	mu      sync.Mutex
	pending map[string]int
	idle    chan struct{} // closed while nothing is pending
}

func newInflight() *inflight {
	f := &inflight{pending: map[string]int{}, idle: make(chan struct{})}
	close(f.idle)
	return f
}

// rpcEnvelope is what tells requests and responses apart.
type rpcEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// messages splits a line into its messages (one, or a batch).
func messages(line []byte) []rpcEnvelope {
	line = bytes.TrimSpace(line)
	var out []rpcEnvelope
	if len(line) > 0 && line[0] == '[' {
		_ = json.Unmarshal(line, &out)
		return out
	}
	var m rpcEnvelope
	if json.Unmarshal(line, &m) == nil {
		out = append(out, m)
	}
	return out
}

// read notes the requests of a line the client sent.
func (f *inflight) read(line []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range messages(line) {
		if m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
			continue // a notification, or the client's answer to the server
		}
		if len(f.pending) == 0 {
			f.idle = make(chan struct{})
		}
		f.pending[string(m.ID)]++
	}
}

// answered notes the answers in a message the server wrote.
func (f *inflight) answered(p []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range messages(p) {
		if m.Method != "" || len(m.ID) == 0 || (m.Result == nil && m.Error == nil) {
			continue
		}
		id := string(m.ID)
		if f.pending[id] == 0 {
			continue
		}
		if f.pending[id]--; f.pending[id] == 0 {
			delete(f.pending, id)
		}
		if len(f.pending) == 0 {
			close(f.idle)
		}
	}
}

// wait returns when every request read has been answered, or ctx ends.
func (f *inflight) wait(ctx context.Context) {
	f.mu.Lock()
	idle := f.idle
	f.mu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
	}
}

// lineFilter passes on the lines that are JSON-RPC messages (or batches of
// them) and answers the others itself.
type lineFilter struct {
	r        *bufio.Reader
	reply    io.Writer
	pending  []byte
	err      error
	ctx      context.Context
	inFlight *inflight
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			if f.inFlight != nil {
				// The input is over: the transport closes the session
				// once this returns, so first let every accepted
				// request be answered.
				f.inFlight.wait(f.ctx)
			}
			return 0, f.err
		}
		line, err := f.r.ReadBytes('\n')
		f.err = err
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if code, msg := checkMessage(t); code != 0 {
				f.answer(code, msg)
				continue
			}
			if f.inFlight != nil {
				f.inFlight.read(t)
			}
			f.pending = append(t, '\n')
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// JSON-RPC error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
)

// checkMessage returns a JSON-RPC error code and message for a line that
// is not a message, or 0.
func checkMessage(line []byte) (int, string) {
	if !json.Valid(line) {
		return rpcParseError, "Parse error: the line is not valid JSON"
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil || len(batch) == 0 {
			return rpcInvalidRequest, "Invalid Request: an empty or malformed batch"
		}
		for _, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return rpcInvalidRequest, "Invalid Request: " + err.Error()
			}
		}
		return 0, ""
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return rpcInvalidRequest, "Invalid Request: " + err.Error()
	}
	return 0, ""
}

func (f *lineFilter) answer(code int, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	_, _ = f.reply.Write(append(b, '\n'))
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

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
	"github.com/incidentlib/incidentlib/internal/kubegap/live"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
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
	"Call scan with manifests (text), paths, or live: true. Read the answer's input (files and objects read, skipped and why) and checks (evaluated, partially evaluated, or not) before calling a scan clean: " +
	"problems lists what could not be read, at FILE:LINE, with what to do (render Helm charts and kustomize folders first). " +
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

// NewServer builds the MCP server with its four tools.
func NewServer(o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "kubegap", Title: "kubegap", Version: o.Version}, &mcp.ServerOptions{Instructions: Instructions})

	mcp.AddTool(s, &mcp.Tool{
		Name:  "scan",
		Title: "Scan Kubernetes objects for incident-grounded gaps",
		Description: "Reads manifests (text or paths) or the live cluster, read-only, and returns findings with the file, line and chart template of their object; each cites the public incidents behind its check. " +
			"The answer says how many files and objects were read and skipped (and why), how many checks were evaluated (and why not), which of them only partially (partial: the kinds they could not list, and what that means), and lists the input problems (what could not be read, at FILE:LINE, and what to do; 100 at most). " +
			"Findings are paged: 50 by default, at most 200 per call (limit); pass next_offset as offset for the next page; min_severity filters. " +
			"Live scans list only the kinds the checks need, paged. A scan that read no Kubernetes object is an error.",
		Annotations: readOnly("Scan for gaps"),
		InputSchema: scanSchema(),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ScanInput) (*mcp.CallToolResult, ScanOutput, error) {
		out, err := scan(ctx, o, in)
		return nil, out, err
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_checks",
		Title:       "List kubegap's checks",
		Description: "The catalogue: id, severity, title, the kinds each check reads and the incident ids that ground it.",
		Annotations: readOnly("List checks"),
		InputSchema: mcpschema.Input[ListInput](),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
		if _, err := lang(in.Lang); err != nil {
			return nil, ListOutput{}, err
		}
		return nil, ListOutput{Checks: report.Catalogue(checks.All())}, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "explain_check",
		Title:       "Explain a check",
		Description: "What a check looks at, why (the summaries of the incidents it cites), how to fix what it finds, and what it cannot see.",
		Annotations: readOnly("Explain a check"),
		InputSchema: mcpschema.Input[ExplainInput](),
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
		OutputSchema: must(Incident{}.OutputSchema()),
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
	switch {
	case in.Live:
		if in.Manifests != "" || len(in.Paths) > 0 {
			return ScanOutput{}, errors.New("give either live or manifests/paths, not both")
		}
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
		kv := manifest.NewestKube
		if in.KubeVersion != "" {
			if kv, err = manifest.ParseKubeVersion(in.KubeVersion); err != nil {
				return ScanOutput{}, fmt.Errorf("kube_version: %w", err)
			}
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
		return ScanOutput{}, errors.New("nothing to scan: pass manifests, paths, or live: true")
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
	out.ProblemsTotal = len(out.Problems)
	if len(out.Problems) > MaxProblems {
		out.Problems = out.Problems[:MaxProblems]
	}
	return out, nil
}

// ServeStdio runs the server on the given stdio streams until the client
// disconnects or ctx ends. A line that is not JSON, or not a JSON-RPC
// message, is answered with a JSON-RPC error (-32700 parse error, -32600
// invalid request) and the server reads on: one bad line from a host must
// not end the session.
func ServeStdio(ctx context.Context, o Options, stdin io.Reader, stdout io.Writer) error {
	s := NewServer(o)
	w := &lockedWriter{w: stdout}
	t := &mcp.IOTransport{Reader: io.NopCloser(&lineFilter{r: bufio.NewReaderSize(stdin, 64<<10), reply: w}), Writer: nopWriteCloser{w}}
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
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lineFilter passes on the lines that are JSON-RPC messages (or batches of
// them) and answers the others itself.
type lineFilter struct {
	r       *bufio.Reader
	reply   io.Writer
	pending []byte
	err     error
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.r.ReadBytes('\n')
		f.err = err
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if code, msg := checkMessage(t); code != 0 {
				f.answer(code, msg)
				continue
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

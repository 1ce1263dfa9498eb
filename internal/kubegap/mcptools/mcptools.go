// Package mcptools serves kubegap over the Model Context Protocol on stdio,
// for coding agents: scan, list_checks, explain_check and get_incident, all
// read-only.
package mcptools

import (
	"context"
	"errors"
	"fmt"
	"github.com/incidentlib/incidentlib/internal/mcpschema"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/live"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
	"github.com/incidentlib/incidentlib/internal/kubegap/report"
	"github.com/incidentlib/incidentlib/internal/locale"
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

// MaxFindings caps the findings one scan answer carries, to keep it within
// an agent's context.
const MaxFindings = 200

// ScanInput is the scan tool's input.
type ScanInput struct {
	Manifests string   `json:"manifests,omitempty" jsonschema:"Kubernetes YAML or JSON to scan (multi-document, kind: List and Helm output work). Leave empty with live true to scan the cluster."`
	Paths     []string `json:"paths,omitempty" jsonschema:"files or folders of manifests on the machine running kubegap"`
	Live      bool     `json:"live,omitempty" jsonschema:"scan the live cluster through the kubeconfig, read-only"`
	Context   string   `json:"context,omitempty" jsonschema:"kubeconfig context for a live scan"`
	Namespace string   `json:"namespace,omitempty" jsonschema:"limit namespaced kinds of a live scan to this namespace"`
	Checks    []string `json:"checks,omitempty" jsonschema:"only these check ids"`
	Lang      string   `json:"lang,omitempty" jsonschema:"en (default) or ko"`
}

// ScanOutput is the scan tool's answer: the JSON report, capped.
type ScanOutput struct {
	report.Report
	Truncated int `json:"truncated,omitempty"`
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
}

// Incident is get_incident's answer: the case, sized for a context window.
type Incident struct {
	ID          string   `json:"id"`
	Org         string   `json:"org"`
	Date        string   `json:"date"`
	Title       string   `json:"title"`
	Summary     string   `json:"summary"`
	Trigger     string   `json:"trigger"`
	Lessons     string   `json:"lessons"`
	RootCause   string   `json:"root_cause"`
	Components  []string `json:"components"`
	Remediation []string `json:"remediation"`
	Sources     []string `json:"sources"`
	CitedBy     []string `json:"cited_by"`
}

func lang(l string) (string, error) { return locale.ParseOr(l, "en") }

func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &f, IdempotentHint: true, Title: title}
}

// NewServer builds the MCP server with its four tools.
func NewServer(o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "kubegap", Title: "kubegap", Version: o.Version}, nil)

	mcp.AddTool(s, &mcp.Tool{
		Name:  "scan",
		Title: "Scan Kubernetes objects for incident-grounded gaps",
		Description: "Reads manifests (text or paths) or the live cluster, read-only, and returns findings; each cites the public incidents behind its check. " +
			"Live scans list only the kinds the checks need, paged, and report checks they could not evaluate.",
		Annotations: readOnly("Scan for gaps"),
		InputSchema: mcpschema.Input[ScanInput](),
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
		Name:        "get_incident",
		Title:       "Get an incident case",
		Description: "One case of the incident library by id (IL-NNNN): summary, trigger, lessons, remediation, sources, and the kubegap checks that cite it.",
		Annotations: readOnly("Get an incident"),
		InputSchema: mcpschema.Input[IncidentInput](),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in IncidentInput) (*mcp.CallToolResult, Incident, error) {
		l, err := lang(in.Lang)
		if err != nil {
			return nil, Incident{}, err
		}
		k := o.Corpus.Case(strings.ToUpper(strings.TrimSpace(in.ID)))
		if k == nil {
			return nil, Incident{}, fmt.Errorf("no case %q in the corpus", in.ID)
		}
		inc := Incident{
			ID: k.ID, Org: k.Org, Date: k.Date, Title: k.Title.In(l), Summary: k.Summary.In(l),
			Trigger: k.Trigger.In(l), Lessons: k.Lessons.In(l), RootCause: k.RootCause,
			Components: k.Components, Remediation: []string{}, Sources: []string{}, CitedBy: []string{},
		}
		for _, r := range k.Remediation {
			inc.Remediation = append(inc.Remediation, r.Text.In(l))
		}
		for _, src := range k.Sources {
			inc.Sources = append(inc.Sources, src.URL)
		}
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
		inv, _, rerr := kubegap.ReadFiles(paths, strings.NewReader(in.Manifests), cs)
		if rerr != nil {
			var me *manifest.Error
			if errors.As(rerr, &me) && me.File == "<stdin>" {
				me.File = "manifests"
			}
			return ScanOutput{}, rerr
		}
		res = kubegap.Evaluate(inv, cs, nil, true)
	default:
		return ScanOutput{}, errors.New("nothing to scan: pass manifests, paths, or live: true")
	}
	out := ScanOutput{Report: report.Build(res, l)}
	if n := len(out.Findings); n > MaxFindings {
		out.Truncated = n - MaxFindings
		out.Findings = out.Findings[:MaxFindings]
	}
	return out, nil
}

// ServeStdio runs the server on the given stdio streams until the client
// disconnects or ctx ends.
func ServeStdio(ctx context.Context, o Options, stdin io.Reader, stdout io.Writer) error {
	s := NewServer(o)
	t := &mcp.IOTransport{Reader: nopReadCloser{stdin}, Writer: nopWriteCloser{stdout}}
	err := s.Run(ctx, t)
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "EOF")) {
		return nil
	}
	return err
}

type nopReadCloser struct{ io.Reader }

func (nopReadCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// Package mcptools serves kubegap over the Model Context Protocol on stdio,
// for coding agents. Its tools, all read-only, are one mcptool.List (tools,
// in tools.go), each tool a constructor in its own file.
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

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/live"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
	"github.com/incidentlib/incidentlib/internal/kubegap/render"
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

// Instructions tell the host what the server is for and how to use it.
const Instructions = "kubegap checks Kubernetes objects (manifests or a live cluster, read-only) for gaps that public incidents exposed; every finding cites its cases (get_incident tells them). " +
	"Call scan with manifests (text), paths, chart (with values, set, release, namespace), kustomize, or live: true. Read the answer's input (files and objects read, skipped and why) and checks (evaluated, partially evaluated, or not) before calling a scan clean: " +
	"problems lists what could not be read, at FILE:LINE, with what to do (a Helm chart goes in chart, a kustomize folder in kustomize). " +
	"Findings come a page at a time (limit, at most 200; next_offset for more; min_severity to narrow). explain_check says what a check looks at and how to fix what it finds."

// lang is the language of an answer: en or ko, English by default.
func lang(l string) (string, error) { return locale.ParseOr(l, "en") }

// NewServer builds the MCP server with the tools of the list.
func NewServer(o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "kubegap", Title: "kubegap", Version: o.Version}, &mcp.ServerOptions{Instructions: Instructions})
	tools(o).Install(s)
	return s
}

// Render names a chart to render (with its values, set values and release
// name) or a kustomization to build.
type Render struct {
	Chart     string
	Values    []string
	Set       []string
	Release   string
	Kustomize string
	// skim: a scan builds the kinds it reads only the metadata of from
	// their metadata (render.KustomizeOptions.Skim); the render command
	// prints them whole.
	skim func(apiVersion, kind string) bool
}

// MetadataOnly reports whether a scan reads only the metadata of the
// objects of this apiVersion and kind (CustomResourceDefinitions,
// Namespaces).
func MetadataOnly(apiVersion, kind string) bool {
	k, ok := inventory.Lookup(apiVersion, kind)
	return ok && inventory.Info(k).MetadataOnly
}

// Docs renders the chart or builds the kustomization: the documents a scan
// of r reads, each located at its template or source file. namespace is
// the chart's release namespace, kv the Kubernetes release its templates
// render for (the newest kubegap knows when zero). The scan and render
// commands and the scan tool share it.
func (r Render) Docs(ctx context.Context, namespace string, kv manifest.KubeVersion) ([]render.Doc, error) {
	var docs []render.Doc
	var what string
	var err error
	if kv.Minor == 0 {
		kv = manifest.NewestKube
	}
	switch {
	case r.Chart != "" && r.Kustomize != "":
		return nil, errors.New("a chart and a kustomization cannot be scanned together: scan one at a time")
	case r.Chart != "":
		what = "chart " + r.Chart
		docs, err = render.Chart(ctx, render.ChartOptions{Chart: r.Chart, ValuesFiles: r.Values, Set: r.Set,
			Release: r.Release, Namespace: namespace, KubeVersion: "v" + kv.String() + ".0"})
	default:
		what = "kustomization " + r.Kustomize
		docs, err = render.KustomizeWith(r.Kustomize, render.KustomizeOptions{Skim: r.skim})
	}
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("the %s rendered no Kubernetes object: check its values and conditions", what)
	}
	return docs, nil
}

// ReadRendered renders the chart or builds the kustomization (Docs), then
// reads its objects as a file scan does (problems, counts, namespaces as o
// gives them, removed API versions), each located at its template or
// source file. The command line and the scan tool share it.
func ReadRendered(ctx context.Context, r Render, cs []*checks.Check, o kubegap.ReadOptions) (*inventory.Inventory, *kubegap.Input, []manifest.Problem, error) {
	r.skim = MetadataOnly
	docs, err := r.Docs(ctx, o.Namespace, o.KubeVersion)
	if err != nil {
		return nil, nil, nil, err
	}
	if o.KubeVersion.Minor == 0 {
		o.KubeVersion = manifest.NewestKube
	}
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

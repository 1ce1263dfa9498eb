// Package cli is kubegap's command line: scan, checks, explain, rbac and
// mcp. Main runs it and returns the process exit code: 0 clean, 1 findings
// at or above --fail-on, 2 a user error (flags, input), 3 scanned but part
// of the input could not be read, 4 an internal error.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/exitcode"
	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/live"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
	"github.com/incidentlib/incidentlib/internal/kubegap/mcptools"
	"github.com/incidentlib/incidentlib/internal/kubegap/render"
	"github.com/incidentlib/incidentlib/internal/kubegap/report"

	"github.com/incidentlib/incidentlib/internal/locale"
)

// Version is kubegap's version, set at link time.
var Version = "dev"

// Exit codes. A user error (ExitFailed) is one the user can fix by
// changing the flags or the input; an internal error (ExitInternal) is
// kubegap's own failure.
const (
	ExitClean    = 0
	ExitFindings = 1
	// ExitFailed: the scan could not be done as asked: bad flags or
	// arguments, a path that cannot be read, a cluster that cannot be
	// reached, an input with no object a check reads, no check evaluated;
	// with --strict, any input problem.
	ExitFailed = 2
	// ExitIncomplete: the scan ran and reported, but part of the input
	// could not be read (error-level problems), so a clean or findings
	// result speaks only of the rest. It wins over ExitFindings.
	ExitIncomplete = 3
	// ExitInternal: kubegap itself failed (a panic, its embedded case
	// library did not load, the report could not be written); no flag or
	// input change is asked for.
	ExitInternal = 4
)

// exitCodes says what each exit code means; the help lists them in this
// order.
var exitCodes = []exitcode.Code{
	{Code: ExitClean, Meaning: "clean: no finding at or above --fail-on, and all of the input was read"},
	{Code: ExitFindings, Meaning: "findings at or above --fail-on (and all of the input was read)"},
	{Code: ExitFailed, Meaning: `user error: bad flags or arguments, a path that cannot be read, a cluster
it could not reach, an input with no Kubernetes object or none a check
reads, no check evaluated; with --strict, any input problem`},
	{Code: ExitIncomplete, Meaning: `scanned, but part of the input could not be read (invalid YAML, a removed
API version, a chart or kustomize folder given to -f, ...): the report
lists each problem; findings, if any, are reported too`},
	{Code: ExitInternal, Meaning: `internal error: kubegap itself failed (a panic, its embedded case library
did not load, the report could not be written); please report it`},
}

// exitCodesHelp is what the help says of the exit codes.
var exitCodesHelp = exitcode.Help(exitCodes)

// internalError marks kubegap's own failure (exit 4).
type internalError struct{ err error }

func (e internalError) Error() string { return "internal error: " + e.err.Error() }
func (e internalError) Unwrap() error { return e.err }

// errFindings signals exit 1 without printing anything more.
var errFindings = errors.New("findings at or above --fail-on")

// incompleteError signals exit 3; its message goes to stderr.
type incompleteError struct{ problems int }

func (e incompleteError) Error() string {
	return fmt.Sprintf("%d input %s: part of the input could not be read, and the report speaks only of the rest (exit %d; --strict makes this exit %d)",
		e.problems, pluralS(e.problems, "problem", "problems"), ExitIncomplete, ExitFailed)
}

// programName is the name the binary was run as (kubegap, or kubectl-gap
// when kubectl runs it as a plugin).
var programName = filepath.Base(os.Args[0])

// Main runs kubegap with args and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	err := execute(ctx, root)
	code := exitCode(err)
	if code != ExitClean && code != ExitFindings {
		fmt.Fprintf(stderr, "kubegap: %s\n", err)
	}
	return code
}

// execute runs root, turning a panic into an internal error.
func execute(ctx context.Context, root *cobra.Command) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = internalError{fmt.Errorf("panic: %v\n%s", r, debug.Stack())}
		}
	}()
	return root.ExecuteContext(ctx)
}

// exitCode is the exit code for what a command returned.
func exitCode(err error) int {
	switch {
	case err == nil:
		return ExitClean
	case errors.Is(err, errFindings):
		return ExitFindings
	case errors.As(err, new(incompleteError)):
		return ExitIncomplete
	case errors.As(err, new(internalError)):
		return ExitInternal
	default:
		return ExitFailed
	}
}

// defaultLang reads the language from KUBEGAP_LANG, LC_ALL or LANG, the
// first that is set: Korean for a Korean locale (ko_KR.UTF-8), else English.
func defaultLang() string {
	for _, v := range []string{os.Getenv("KUBEGAP_LANG"), os.Getenv("LC_ALL"), os.Getenv("LANG")} {
		if v == "" {
			continue
		}
		if l, err := locale.Parse(v); err == nil {
			return l
		}
		return locale.EN
	}
	return locale.EN
}

func checkLang(l *string) error {
	p, err := locale.Parse(*l)
	if err != nil {
		return fmt.Errorf("unknown language %q (want ko or en)", *l)
	}
	*l = p
	return nil
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "kubegap",
		Short:         "Read-only Kubernetes checks, each grounded in public incidents",
		Long:          "kubegap reads a cluster (or manifests) read-only and reports the gaps that past incidents exposed; every finding cites its cases. Installed as kubectl-gap it also runs as `kubectl gap`.\n\n" + exitCodesHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
	}
	// Run by kubectl as a plugin (kubectl-gap), help and usage name the
	// command the way the user typed it: kubectl gap scan.
	if strings.HasPrefix(programName, "kubectl-") {
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl " + strings.TrimPrefix(programName, "kubectl-")}
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newScan(stdin, stdout, stderr), newRender(stdout), newChecks(stdout), newExplain(stdout), newRBAC(stdout), newMCP(stdin, stdout))
	if name, ok := root.Annotations[cobra.CommandDisplayNameAnnotation]; ok {
		for _, c := range root.Commands() {
			c.Example = strings.ReplaceAll(c.Example, "kubegap ", name+" ")
		}
	}
	return root
}

type scanFlags struct {
	files          []string
	kubeconfig     string
	kubeContext    string
	namespace      string
	allNamespaces  bool
	output         string
	lang           string
	failOn         string
	config         string
	only           []string
	annotations    bool
	qps            float32
	burst          int
	concurrency    int
	requestTimeout time.Duration
	timeout        time.Duration
	strict         bool
	kubeVersion    string
	render         renderFlags
}

func newScan(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	f := &scanFlags{}
	cmd := &cobra.Command{
		Use:   "scan",
		Short: "Scan a live cluster (kubeconfig), manifests (-f), a Helm chart (--chart) or a kustomization (-k)",
		Long:  "Scan a live cluster (kubeconfig), manifests (-f), a Helm chart (--chart) or a kustomization (-k).\n\n" + exitCodesHelp,
		Example: `  kubegap scan                              # the current kubeconfig context, all namespaces
  kubegap scan --context prod -o json
  kubegap scan -f manifests/ -f extra.yaml
  kubegap scan --chart ./my-chart --values prod.yaml --set replicas=3 -n web
  kubegap scan -k overlays/prod
  helm template my-chart | kubegap scan -f - -o markdown
  kubectl get deploy,ds,svc -A -o yaml | kubegap scan -f -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return scan(cmd, f, stdin, stdout, stderr)
		},
	}
	f.register(cmd.Flags())
	return cmd
}

// scan reads the options of f, scans and writes the report.
func scan(cmd *cobra.Command, f *scanFlags, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := checkLang(&f.lang); err != nil {
		return err
	}
	threshold := checks.Severity(0)
	if f.failOn != "none" {
		s, err := checks.ParseSeverity(f.failOn)
		if err != nil {
			return fmt.Errorf("--fail-on: %w", err)
		}
		threshold = s
	}
	if f.output != "" && !contains(report.Formats, f.output) && f.output != "md" {
		return fmt.Errorf("unknown output format %q (want %s)", f.output, strings.Join(report.Formats, ", "))
	}
	var cfg *kubegap.Config
	if f.config != "" {
		c, err := kubegap.LoadConfig(f.config)
		if err != nil {
			return err
		}
		cfg = c
	}
	cs, err := kubegap.Select(f.only, cfg)
	if err != nil {
		return err
	}
	res, err := runScan(cmd.Context(), f, cs, cfg, cmd.Flags().Changed("annotations"), cmd.Flags().Changed("namespace"), stdin, stderr)
	if err != nil {
		return err
	}
	if err := report.Write(stdout, res, f.output, f.lang, Version); err != nil {
		return internalError{fmt.Errorf("write the report: %w", err)}
	}
	return scanOutcome(res, f.strict, threshold)
}

// scanOutcome is the error a written report ends the scan with: a scan
// that could evaluate nothing, or (with strict) one that could not read
// all of its input, fails; one with a finding at or above threshold
// (unless 0) exits with errFindings.
func scanOutcome(res *kubegap.Result, strict bool, threshold checks.Severity) error {
	if res.Checks > 0 {
		if err := res.Input.NothingChecked(); err != nil {
			return err
		}
	}
	if res.Checks > 0 && res.Evaluated() == 0 {
		why := ""
		if len(res.NotEvaluated) > 0 {
			why = ": " + res.NotEvaluated[0].Reason
			if len(res.NotEvaluated) > 1 {
				why += fmt.Sprintf(" (and %d more, listed in the report)", len(res.NotEvaluated)-1)
			}
		}
		return fmt.Errorf("no check could be evaluated%s", why)
	}
	if strict && len(res.Problems) > 0 {
		return fmt.Errorf("--strict: %d input %s (the first: %s)", len(res.Problems), pluralS(len(res.Problems), "problem", "problems"), res.Problems[0])
	}
	unread := 0
	for _, p := range res.Problems {
		if p.Level == manifest.LevelError {
			unread++
		}
	}
	if unread > 0 {
		return incompleteError{unread}
	}
	if threshold > 0 {
		for _, fd := range res.Findings {
			if fd.Severity >= threshold {
				return errFindings
			}
		}
	}
	return nil
}

// register declares scan's flags, which set f.
func (f *scanFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVarP(&f.files, "filename", "f", nil, "scan manifests: a file, a folder, or - for stdin (repeatable; a folder that holds a kustomization.yaml is built as -k does, or read as it is when it cannot be built, and stderr says which); without it kubegap scans the live cluster")
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	fl.StringVar(&f.kubeContext, "context", "", "kubeconfig context to use")
	fl.StringVarP(&f.namespace, "namespace", "n", "", "live: read namespaced kinds in this namespace only (cluster-scoped kinds are always read); files: the namespace of objects that name none, as kubectl apply -n (default \"default\")")
	fl.BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "read every namespace (the default)")
	fl.StringVarP(&f.output, "output", "o", "table", "output format: table, json, sarif or markdown")
	fl.StringVar(&f.lang, "lang", defaultLang(), "language of titles and messages: ko or en")
	fl.StringVar(&f.failOn, "fail-on", "low", "exit 1 when a finding is at or above this severity: low, medium, high or none")
	fl.StringVar(&f.config, "config", "", "suppression file (YAML: disable: [ids], ignore: [{check, kind, namespace, name, reason}])")
	fl.StringSliceVar(&f.only, "checks", nil, "run only these checks (comma-separated ids)")
	fl.BoolVar(&f.annotations, "annotations", false, "honour kubegap.io/ignore annotations (default: on for files, off for live scans)")
	fl.Float32Var(&f.qps, "qps", 5, "live: client requests per second")
	fl.IntVar(&f.burst, "burst", 10, "live: client request burst")
	fl.IntVar(&f.concurrency, "concurrency", 2, "live: kinds listed at the same time")
	fl.DurationVar(&f.requestTimeout, "request-timeout", 30*time.Second, "live: timeout of each API request")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Minute, "live: timeout of the whole scan")
	fl.BoolVar(&f.strict, "strict", false, "files: exit 2 when any part of the input could not be read (the report still lists everything)")
	fl.StringVar(&f.kubeVersion, "kube-version", manifest.NewestKube.String(), "files: the Kubernetes release to read for; objects in API versions it no longer serves are problems")
	addRenderFlags(fl, &f.render, "scan")
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func pluralS(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func runScan(ctx context.Context, f *scanFlags, cs []*checks.Check, cfg *kubegap.Config, annotationsSet, namespaceSet bool, stdin io.Reader, stderr io.Writer) (*kubegap.Result, error) {
	if f.render.used() {
		return renderScan(ctx, f, cs, cfg, annotationsSet, namespaceSet)
	} else if err := renderNoFlags(&f.render); err != nil {
		return nil, err
	}
	if len(f.files) > 0 {
		annotations := true
		if annotationsSet {
			annotations = f.annotations
		}
		kv, err := manifest.ParseKubeVersion(f.kubeVersion)
		if err != nil {
			return nil, fmt.Errorf("--kube-version: %w", err)
		}
		if f.allNamespaces {
			return nil, errors.New("-A is for live scans; with -f, -n gives the namespace of objects that name none")
		}
		paths, streams, plain := kustomizeFolders(f.files, stderr)
		inv, in, problems, err := kubegap.ReadInput(paths, stdin, cs, kubegap.ReadOptions{Namespace: f.namespace, NamespaceSet: namespaceSet, KubeVersion: kv, Streams: streams, PlainFolders: plain})
		if err != nil {
			return nil, err
		}
		res := kubegap.Evaluate(inv, cs, cfg, annotations)
		res.Input, res.Problems = in, problems
		return res, nil
	}
	if f.strict || f.kubeVersion != manifest.NewestKube.String() {
		return nil, errors.New("--strict and --kube-version are for manifests (-f); a live cluster serves what it serves")
	}
	if f.namespace != "" && f.allNamespaces {
		return nil, errors.New("-n and -A cannot be used together")
	}
	o := live.Options{
		Kubeconfig: f.kubeconfig, Context: f.kubeContext, Namespace: f.namespace,
		QPS: f.qps, Burst: f.burst, Concurrency: f.concurrency, RequestTimeout: f.requestTimeout,
		UserAgent: "kubegap/" + Version,
	}
	if file, ok := stderr.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
		o.Progress = stderr
	}
	return LiveScan(ctx, o, f.timeout, cs, cfg, annotationsSet && f.annotations)
}

// kustomizeFolders builds each -f folder that holds a kustomization file,
// as -k does, and scans what it builds in place of its files; one that
// cannot be built (a remote base, a broken patch) has its files read as
// they are. Either way stderr says which, and why. Kustomize folders
// further down a -f folder stay problems that say to build them.
func kustomizeFolders(files []string, stderr io.Writer) (paths []string, streams []kubegap.Stream, plain map[string]bool) {
	for _, p := range files {
		if p == "-" || !isDir(p) || !manifest.HoldsKustomization(p) {
			paths = append(paths, p)
			continue
		}
		docs, err := render.KustomizeWith(p, render.KustomizeOptions{Skim: mcptools.MetadataOnly})
		if err == nil && len(docs) > 0 {
			fmt.Fprintf(stderr, "kubegap: -f %s holds a kustomization: built it, as -k %s does, and scanned the %d %s it builds (not its files as they are)\n", p, p, len(docs), pluralS(len(docs), "object", "objects"))
			streams = append(streams, render.Streams(docs)...)
			continue
		}
		why := "it builds no object"
		if err != nil {
			why = err.Error()
		}
		fmt.Fprintf(stderr, "kubegap: -f %s holds a kustomization that could not be built (%s): read its files as they are instead, without its patches, generators or bases\n", p, why)
		if plain == nil {
			plain = map[string]bool{}
		}
		plain[p] = true
		paths = append(paths, p)
	}
	return paths, streams, plain
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// LiveScan reads the cluster and evaluates cs.
func LiveScan(ctx context.Context, o live.Options, timeout time.Duration, cs []*checks.Check, cfg *kubegap.Config, annotations bool) (*kubegap.Result, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	kinds := append(checks.Kinds(cs), inventory.Pod)
	inv, st, err := live.Read(ctx, o, kinds)
	if err != nil {
		return nil, err
	}
	res := kubegap.Evaluate(inv, cs, cfg, annotations)
	res.APIRequests = st.Requests
	why := map[string]string{}
	for _, d := range st.Denied {
		why[string(d.Kind)] = d.Reason
	}
	for i, n := range res.NotEvaluated {
		var rs []string
		for _, k := range n.Missing {
			if r := why[k]; r != "" {
				rs = append(rs, r)
			}
		}
		if len(rs) > 0 {
			res.NotEvaluated[i].Reason = strings.Join(rs, "; ")
		}
	}
	for i, p := range res.Partial {
		var rs []string
		for _, k := range p.Missing {
			if r := why[k]; r != "" {
				rs = append(rs, r)
			}
		}
		res.Partial[i].Cause = strings.Join(rs, "; ")
	}
	return res, nil
}

func loadCorpus() (*corpus.Corpus, error) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		return nil, internalError{fmt.Errorf("load the embedded corpus: %w", err)}
	}
	return c, nil
}

func caseTitle(c *corpus.Corpus) func(string) string {
	return func(id string) string {
		if k := c.Case(id); k != nil {
			return k.Title.EN
		}
		return "(missing from the corpus)"
	}
}

func newChecks(stdout io.Writer) *cobra.Command {
	var output, lang string
	cmd := &cobra.Command{
		Use:   "checks",
		Short: "List the checks (the catalogue)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := checkLang(&lang); err != nil {
				return err
			}
			c, err := loadCorpus()
			if err != nil {
				return err
			}
			return report.WriteCatalogue(stdout, checks.All(), output, lang, caseTitle(c))
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table, json or markdown")
	cmd.Flags().StringVar(&lang, "lang", defaultLang(), "language: ko or en")
	return cmd
}

func newExplain(stdout io.Writer) *cobra.Command {
	var output, lang string
	cmd := &cobra.Command{
		Use:   "explain CHECK",
		Short: "Explain a check: what it looks at, why (its cases), how to fix, what it cannot see",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := checkLang(&lang); err != nil {
				return err
			}
			c := checks.Get(args[0])
			if c == nil {
				return fmt.Errorf("unknown check %q (kubegap checks lists them)", args[0])
			}
			corp, err := loadCorpus()
			if err != nil {
				return err
			}
			return report.WriteExplain(stdout, report.Explain(c, corp.Case, lang), output, lang)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	cmd.Flags().StringVar(&lang, "lang", defaultLang(), "language: ko or en")
	return cmd
}

func newRBAC(stdout io.Writer) *cobra.Command {
	var name string
	var only []string
	cmd := &cobra.Command{
		Use:   "rbac",
		Short: "Print the minimal read-only ClusterRole (and kube-system Role) for the enabled checks",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cs, err := kubegap.Select(only, nil)
			if err != nil {
				return err
			}
			return report.WriteRBAC(stdout, cs, name)
		},
	}
	cmd.Flags().StringVar(&name, "name", "kubegap-reader", "name of the roles")
	cmd.Flags().StringSliceVar(&only, "checks", nil, "only these checks (comma-separated ids)")
	return cmd
}

func newMCP(stdin io.Reader, stdout io.Writer) *cobra.Command {
	var o mcptools.Options
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve MCP on stdio (read-only tools: " + strings.Join(mcptools.Names, ", ") + ")",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			corp, err := loadCorpus()
			if err != nil {
				return err
			}
			o.Version = Version
			o.Corpus = corp
			o.LiveScan = LiveScan
			return mcptools.ServeStdio(cmd.Context(), o, stdin, stdout)
		},
	}
	cmd.Flags().StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig for live scans (default: $KUBECONFIG, then ~/.kube/config)")
	cmd.Flags().StringVar(&o.Context, "context", "", "default kubeconfig context for live scans")
	cmd.Flags().BoolVar(&o.AllowFiles, "allow-files", true, "let the scan tool read manifest paths on this machine")
	return cmd
}

package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/incidentlib/incidentlib/internal/exitcode"
	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
	"github.com/incidentlib/incidentlib/internal/kubegap/mcptools"
	"github.com/incidentlib/incidentlib/internal/kubegap/render"
)

// renderFlags are scan's flags for inputs kubegap renders itself: a Helm
// chart (--chart) or a kustomization (-k).
type renderFlags struct {
	chart     string
	values    []string
	set       []string
	release   string
	kustomize string
}

// addRenderFlags registers the flags; what is what the command does with
// the objects ("scan" or "print").
func addRenderFlags(fl *pflag.FlagSet, r *renderFlags, what string) {
	fl.StringVar(&r.chart, "chart", "", "render this Helm chart (a folder or a .tgz) as helm template does, client-side, and "+what+" its objects; -n is the release namespace")
	fl.StringArrayVar(&r.values, "values", nil, "--chart: a values file (repeatable; later files win)")
	fl.StringArrayVar(&r.set, "set", nil, "--chart: set a value, as helm --set key=value does (repeatable)")
	fl.StringVar(&r.release, "release", "", "--chart: release name (default "+render.DefaultRelease+")")
	fl.StringVarP(&r.kustomize, "kustomize", "k", "", "build this kustomization folder (local files only) and "+what+" its objects")
}

func (r *renderFlags) used() bool { return r.chart != "" || r.kustomize != "" }

// check refuses flags that do not go together.
func (r *renderFlags) check(f *scanFlags) error {
	switch {
	case r.chart != "" && r.kustomize != "":
		return errors.New("--chart and -k cannot be used together: scan one at a time")
	case len(f.files) > 0:
		return errors.New("-f cannot be used with --chart or -k: scan one input at a time")
	case f.allNamespaces:
		return errors.New("-A does not apply to --chart or -k")
	case r.kustomize != "" && (len(r.values) > 0 || len(r.set) > 0 || r.release != ""):
		return errors.New("--values, --set and --release apply to --chart only")
	}
	return nil
}

// renderNoFlags refuses chart-only flags given without --chart.
func renderNoFlags(r *renderFlags) error {
	var given []string
	for name, set := range map[string]bool{"--values": len(r.values) > 0, "--set": len(r.set) > 0, "--release": r.release != ""} {
		if set {
			given = append(given, name)
		}
	}
	if len(given) == 0 {
		return nil
	}
	return fmt.Errorf("%s %s only with --chart", strings.Join(given, ", "), map[bool]string{true: "applies", false: "apply"}[len(given) == 1])
}

// renderScan renders the chart or builds the kustomization, then reads and
// checks its objects as a file scan does (problems, counts, namespaces as
// -n gives them, removed API versions), each located at its template or
// source file.
func renderScan(ctx context.Context, f *scanFlags, cs []*checks.Check, cfg *kubegap.Config, annotationsSet, namespaceSet bool) (*kubegap.Result, error) {
	r := &f.render
	if err := r.check(f); err != nil {
		return nil, err
	}
	kv, err := manifest.ParseKubeVersion(f.kubeVersion)
	if err != nil {
		return nil, fmt.Errorf("--kube-version: %w", err)
	}
	inv, in, problems, err := mcptools.ReadRendered(ctx, mcptools.Render{Chart: r.chart, Values: r.values, Set: r.set, Release: r.release, Kustomize: r.kustomize},
		cs, kubegap.ReadOptions{Namespace: f.namespace, NamespaceSet: namespaceSet, KubeVersion: kv})
	if err != nil {
		return nil, err
	}
	annotations := true
	if annotationsSet {
		annotations = f.annotations
	}
	res := kubegap.Evaluate(inv, cs, cfg, annotations)
	res.Input, res.Problems = in, problems
	return res, nil
}

// renderExitCodes are the exit codes of kubegap render.
var renderExitCodes = []exitcode.Code{
	{Code: ExitClean, Meaning: "rendered: every document is printed"},
	{Code: ExitFailed, Meaning: `user error: bad flags, a chart or kustomization that cannot be read or
rendered, or one that renders no Kubernetes object`},
	{Code: ExitInternal, Meaning: "internal error: kubegap itself failed, or the output could not be written"},
}

// newRender is kubegap render: the objects a scan of --chart or -k reads,
// printed as YAML, so that another tool (kube-score, kubeconform, a
// reviewer) can be run on exactly what kubegap checked.
func newRender(stdout io.Writer) *cobra.Command {
	var r renderFlags
	var namespace, kubeVersion string
	cmd := &cobra.Command{
		Use:   "render",
		Short: "Print the objects a scan of a Helm chart (--chart) or a kustomization (-k) reads, as YAML",
		Long: `Print the objects a scan of a Helm chart (--chart) or a kustomization (-k) reads, as
one YAML stream: the chart rendered client-side as helm template does (hooks
included, NOTES.txt and CRDs left out, nothing contacted), or the kustomization
built from local files. Each document follows a "# Source:" comment naming the
template or file it came from (with its line, when kustomize's file has it).
Scanning the output with scan -f - finds what scan --chart or scan -k finds.

` + exitcode.Help(renderExitCodes),
		Example: `  kubegap render --chart ./my-chart --values prod.yaml --set replicas=3 -n web > rendered.yaml
  kubegap render -k overlays/prod | kube-score score -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := r.checkRender(cmd.Flags()); err != nil {
				return err
			}
			kv, err := manifest.ParseKubeVersion(kubeVersion)
			if err != nil {
				return fmt.Errorf("--kube-version: %w", err)
			}
			docs, err := mcptools.Render{Chart: r.chart, Values: r.values, Set: r.set, Release: r.release, Kustomize: r.kustomize}.
				Docs(cmd.Context(), namespace, kv)
			if err != nil {
				return err
			}
			return writeRendered(stdout, docs)
		},
	}
	addRenderFlags(cmd.Flags(), &r, "print")
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "--chart: the release namespace (default \"default\")")
	cmd.Flags().StringVar(&kubeVersion, "kube-version", manifest.NewestKube.String(), "--chart: the Kubernetes release the templates render for (.Capabilities.KubeVersion)")
	return cmd
}

// checkRender refuses what render cannot do: nothing to render, both
// inputs, and a chart's flags given with -k (a flag is never ignored).
func (r *renderFlags) checkRender(fl *pflag.FlagSet) error {
	switch {
	case r.chart == "" && r.kustomize == "":
		return errors.New("render needs --chart (a chart folder or .tgz) or -k (a kustomization folder)")
	case r.chart != "" && r.kustomize != "":
		return errors.New("--chart and -k cannot be used together: render one at a time")
	case r.kustomize == "":
		return nil
	}
	var chartOnly []string
	for _, name := range []string{"values", "set", "release", "namespace", "kube-version"} {
		if fl.Changed(name) {
			chartOnly = append(chartOnly, "--"+name)
		}
	}
	if len(chartOnly) > 0 {
		return fmt.Errorf("%s %s to --chart only: a kustomization sets its own namespaces", strings.Join(chartOnly, ", "), map[bool]string{true: "applies", false: "apply"}[len(chartOnly) == 1])
	}
	return nil
}

// writeRendered writes docs as one YAML stream, each document after a
// "# Source:" comment.
func writeRendered(w io.Writer, docs []render.Doc) error {
	bw := bufio.NewWriter(w)
	for _, d := range docs {
		src := d.File
		if d.Line > 0 {
			src = fmt.Sprintf("%s (line %d)", src, d.Line)
		}
		y := strings.TrimLeft(string(d.YAML), "\n")
		fmt.Fprintf(bw, "---\n# Source: %s\n%s", src, y)
		if !strings.HasSuffix(y, "\n") {
			bw.WriteByte('\n')
		}
	}
	if err := bw.Flush(); err != nil {
		return internalError{fmt.Errorf("write the rendered objects: %w", err)}
	}
	return nil
}

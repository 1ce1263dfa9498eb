package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

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

func addRenderFlags(fl *pflag.FlagSet, r *renderFlags) {
	fl.StringVar(&r.chart, "chart", "", "render this Helm chart (a folder or a .tgz) as helm template does, client-side, and scan its objects; -n is the release namespace")
	fl.StringArrayVar(&r.values, "values", nil, "--chart: a values file (repeatable; later files win)")
	fl.StringArrayVar(&r.set, "set", nil, "--chart: set a value, as helm --set key=value does (repeatable)")
	fl.StringVar(&r.release, "release", "", "--chart: release name (default "+render.DefaultRelease+")")
	fl.StringVarP(&r.kustomize, "kustomize", "k", "", "build this kustomization folder (local files only) and scan its objects")
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

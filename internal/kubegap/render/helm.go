package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	commonutil "helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"helm.sh/helm/v4/pkg/strvals"
)

// ChartOptions are what `helm template` takes, for the parts kubegap uses.
type ChartOptions struct {
	// Chart is a chart folder or a packaged chart (.tgz).
	Chart string
	// ValuesFiles are merged in order, later ones winning (--values).
	ValuesFiles []string
	// Set are key=value overrides in Helm's --set syntax, applied last.
	Set []string
	// Release is the release name (default "release-name", as helm template).
	Release string
	// Namespace is the release namespace (default "default").
	Namespace string
	// KubeVersion is the Kubernetes version the templates see in
	// .Capabilities (default DefaultKubeVersion()).
	KubeVersion string
}

// DefaultRelease is the release name helm template uses without one.
const DefaultRelease = "release-name"

// DefaultKubeVersion is the Kubernetes version charts render for when none
// is given: the minor version of the Kubernetes client libraries kubegap is
// built with, as Helm itself does.
func DefaultKubeVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path != "k8s.io/client-go" {
				continue
			}
			// client-go v0.N.x goes with Kubernetes v1.N.
			parts := strings.Split(strings.TrimPrefix(m.Version, "v"), ".")
			if len(parts) >= 2 && parts[0] == "0" {
				if n, err := strconv.Atoi(parts[1]); err == nil && n > 0 {
					return fmt.Sprintf("v1.%d.0", n)
				}
			}
		}
	}
	return "v1.37.0"
}

// Chart renders a chart client-side, as `helm template` does: hooks
// included, NOTES.txt and CRDs left out, lookup finding nothing. Each
// document is located at the template that produced it.
func Chart(ctx context.Context, o ChartOptions) ([]Doc, error) {
	if o.Chart == "" {
		return nil, errors.New("--chart needs a chart folder or a packaged chart (.tgz)")
	}
	st, err := os.Stat(o.Chart)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", o.Chart, unwrapPath(err))
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(o.Chart, "Chart.yaml")); err != nil {
			return nil, fmt.Errorf("chart %s: no Chart.yaml in this folder: --chart takes a Helm chart's folder (the one holding Chart.yaml) or a packaged chart (.tgz)", o.Chart)
		}
	}
	ch, err := loader.Load(o.Chart)
	if err != nil {
		return nil, fmt.Errorf("load chart %s: %w", o.Chart, err)
	}
	if err := checkDependencies(ch, o.Chart); err != nil {
		return nil, err
	}
	release := o.Release
	if release == "" {
		release = DefaultRelease
	}
	if err := chartutil.ValidateReleaseName(release); err != nil {
		return nil, fmt.Errorf("--release %q: %w", release, err)
	}
	ns := o.Namespace
	if ns == "" {
		ns = "default"
	}
	kv := o.KubeVersion
	if kv == "" {
		kv = DefaultKubeVersion()
	}
	kube, err := common.ParseKubeVersion(kv)
	if err != nil {
		return nil, fmt.Errorf("--kube-version %q: %w (want a version such as 1.33 or v1.33.2)", kv, err)
	}
	vals, err := userValues(o.ValuesFiles, o.Set)
	if err != nil {
		return nil, err
	}
	if ch.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(ch.Metadata.KubeVersion, kube.String()) {
		return nil, fmt.Errorf("chart %s requires kubeVersion %s, which Kubernetes %s is not: give --kube-version", ch.Name(), ch.Metadata.KubeVersion, kube.String())
	}
	if err := chartutil.ProcessDependencies(ch, vals); err != nil {
		return nil, fmt.Errorf("chart %s: dependencies: %w", ch.Name(), err)
	}
	caps := common.DefaultCapabilities.Copy()
	caps.KubeVersion = *kube
	opts := common.ReleaseOptions{Name: release, Namespace: ns, Revision: 1, IsInstall: true}
	top, err := commonutil.ToRenderValuesWithSchemaValidation(ch, vals, opts, caps, false)
	if err != nil {
		return nil, fmt.Errorf("chart %s: values: %w", ch.Name(), err)
	}
	var e engine.Engine // no REST config: lookup returns nothing, nothing is contacted
	files, err := e.RenderWithContext(ctx, ch, top)
	if err != nil {
		return nil, fmt.Errorf("render chart %s: %w", ch.Name(), err)
	}
	for k := range files {
		if strings.HasSuffix(k, "NOTES.txt") {
			delete(files, k)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, fmt.Errorf("render chart %s: the rendered output is not valid YAML: %w", ch.Name(), err)
	}
	place := templatePlace(o.Chart, st.IsDir(), ch.Name())
	var docs []Doc
	// A template on disk is named by its path there; one inside an archive
	// keeps Helm's name, and no file holds its text.
	doc := func(name, content string) Doc {
		file, onDisk := place(name)
		return Doc{File: file, YAML: []byte(content), FromTemplate: onDisk}
	}
	for _, m := range manifests {
		docs = append(docs, doc(m.Name, m.Content))
	}
	for _, h := range hooks {
		docs = append(docs, doc(h.Path, h.Manifest))
	}
	return docs, nil
}

// templatePlace maps Helm's template names ("chart/templates/x.yaml",
// "chart/charts/sub/templates/y.yaml") to the file on disk when the chart
// is a folder and the file is there; otherwise (a packaged chart, or a
// subchart packaged in charts/) Helm's name is kept: it is the path inside
// the chart. onDisk says which.
func templatePlace(chartPath string, isDir bool, name string) func(string) (place string, onDisk bool) {
	return func(tpl string) (string, bool) {
		if !isDir {
			return tpl, false
		}
		rest, ok := strings.CutPrefix(tpl, name+"/")
		if !ok {
			return tpl, false
		}
		p := filepath.Join(chartPath, filepath.FromSlash(rest))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
		return tpl, false
	}
}

// checkDependencies names the first dependency of Chart.yaml that is not
// in charts/, as helm template refuses such a chart too. Subcharts are
// checked in turn.
func checkDependencies(ch *chart.Chart, chartPath string) error {
	have := map[string]bool{}
	for _, d := range ch.Dependencies() {
		have[d.Name()] = true
	}
	var missing []string
	for _, r := range ch.Metadata.Dependencies {
		if r == nil || have[r.Name] {
			continue
		}
		missing = append(missing, r.Name)
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		where := path.Join(ch.ChartFullPath(), "charts")
		if ch.IsRoot() {
			where = "charts/"
		}
		return fmt.Errorf("chart %s depends on %s, which %s not in %s: run `helm dependency build %s` (or copy the %s into charts/)",
			ch.Name(), strings.Join(missing, ", "), plural(len(missing), "is", "are"), where, chartPath, plural(len(missing), "subchart", "subcharts"))
	}
	for _, d := range ch.Dependencies() {
		if err := checkDependencies(d, chartPath); err != nil {
			return err
		}
	}
	return nil
}

// userValues merges the values files in order, then the --set overrides,
// as helm does.
func userValues(files, sets []string) (map[string]any, error) {
	base := map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("--values %s: %w", f, unwrapPath(err))
		}
		v, err := loader.LoadValues(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("--values %s: %w", f, err)
		}
		base = loader.MergeMaps(base, v)
	}
	for _, s := range sets {
		if !strings.Contains(s, "=") {
			return nil, fmt.Errorf("--set %q: want key=value (for example --set image.tag=1.2, --set 'list={a,b}', --set 'a\\.b=c' for a key with a dot)", s)
		}
		if err := strvals.ParseInto(s, base); err != nil {
			return nil, fmt.Errorf("--set %q: %w (want key=value, for example --set image.tag=1.2)", s, err)
		}
		// Helm's parser takes some malformed keys ("=v", "a[=v") and sets
		// nothing: say so rather than render as if the flag were not given.
		if alone, err := strvals.Parse(s); err == nil && len(alone) == 0 {
			return nil, fmt.Errorf("--set %q sets no value: want key=value (for example --set image.tag=1.2)", s)
		}
	}
	return base, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

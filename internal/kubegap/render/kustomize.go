package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	yaml3 "go.yaml.in/yaml/v3"

	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
)

// Kustomize builds the kustomization in dir as `kustomize build dir` does
// (load restrictions root-only, no plugins, no Helm inflation), from the
// local file system only. Each object is located at the file its resource
// was read from (kustomize's origin annotation, asked for during the build
// and taken off the output), with the line where it starts when the object
// can be told apart in that file; objects a generator made are located at
// the kustomization that configured it.
func Kustomize(dir string) ([]Doc, error) {
	return KustomizeWith(dir, KustomizeOptions{})
}

// KustomizeOptions says how to build a kustomization.
type KustomizeOptions struct {
	// Skim, when set, names the kinds a scan reads only the metadata of:
	// their documents in resource files of skimFrom bytes or more are
	// handed to kustomize with their apiVersion, kind and metadata alone.
	// A CustomResourceDefinition's schema is most of an operator's
	// manifests (argo-cd's are 1.5 MB), and kustomize's parsing, copying
	// and encoding of it was most of a build. A build the skimmed objects
	// make fail (a JSON patch or a replacement that reads their spec) is
	// built again whole. The objects of other kinds come out the same
	// (TestSkimmedBuildSame).
	Skim func(apiVersion, kind string) bool
}

// skimFrom is the size of the resource files Skim looks into: a small
// file costs kustomize little, and reading it twice would cost more.
const skimFrom = 32 << 10

// KustomizeWith is Kustomize with options.
func KustomizeWith(dir string, o KustomizeOptions) ([]Doc, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("kustomization %s: %w", dir, unwrapPath(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("kustomization %s: -k takes the folder that holds kustomization.yaml, not a file", dir)
	}
	kfile, err := kustomizationFile(dir)
	if err != nil {
		return nil, err
	}
	if err := refuseRemote(dir, map[string]bool{}); err != nil {
		return nil, err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(kfile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", kfile, unwrapPath(err))
	}
	withOrigins, userAsked, err := askOrigins(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kfile, err)
	}
	fsys := &originFS{FileSystem: filesys.MakeFsOnDisk(), file: filepath.Join(absDir, filepath.Base(kfile)), data: withOrigins, skim: o.Skim}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fsys, absDir)
	if err != nil && fsys.skimmed {
		fsys.skim = nil // built again whole: the skimmed objects were needed
		m, err = krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fsys, absDir)
	}
	if err != nil {
		return nil, fmt.Errorf("build kustomization %s: %w", dir, err)
	}
	type located struct{ file, kind, name string }
	var places []located
	for _, r := range m.Resources() {
		o, err := r.GetOrigin()
		file := kfile
		if err == nil && o != nil {
			switch {
			case o.Repo != "":
				// Never reached: remote bases are refused above.
			case o.Path != "":
				file = filepath.Join(dir, filepath.FromSlash(o.Path))
			case o.ConfiguredIn != "":
				file = filepath.Join(dir, filepath.FromSlash(o.ConfiguredIn))
			}
		}
		places = append(places, located{file: file, kind: r.GetKind(), name: r.GetName()})
	}
	if !userAsked {
		if err := m.RemoveOriginAnnotations(); err != nil {
			return nil, fmt.Errorf("build kustomization %s: %w", dir, err)
		}
	}
	lines := &lineFinder{cache: map[string][]fileObject{}}
	var docs []Doc
	for i, r := range m.Resources() {
		y, err := r.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("build kustomization %s: %s %s: %w", dir, r.GetKind(), r.GetName(), err)
		}
		p := places[i]
		docs = append(docs, Doc{File: p.file, Line: lines.find(p.file, p.kind, p.name), YAML: y})
	}
	return docs, nil
}

// kustomizationFile is the kustomization file in dir, under any of the
// names kustomize recognises.
func kustomizationFile(dir string) (string, error) {
	var found []string
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		p := filepath.Join(dir, n)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("kustomization %s: no kustomization.yaml in this folder: -k takes a kustomize folder (for manifests use -f, for a Helm chart --chart)", dir)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("kustomization %s: more than one kustomization file (%s): keep one", dir, strings.Join(found, ", "))
}

// askOrigins adds buildMetadata: [originAnnotations] to a kustomization,
// so that the build says which file each resource came from. userAsked is
// set when the kustomization asked for them itself (the output then keeps
// them).
func askOrigins(raw []byte) (out []byte, userAsked bool, err error) {
	var k map[string]any
	if err := yaml.Unmarshal(raw, &k); err != nil {
		return nil, false, fmt.Errorf("not a valid kustomization: %w", err)
	}
	if k == nil {
		k = map[string]any{}
	}
	var meta []any
	if v, ok := k["buildMetadata"]; ok {
		list, ok := v.([]any)
		if !ok {
			return nil, false, errors.New("buildMetadata must be a list")
		}
		meta = list
	}
	for _, v := range meta {
		if v == types.OriginAnnotations {
			return raw, true, nil
		}
	}
	k["buildMetadata"] = append(meta, types.OriginAnnotations)
	out, err = yaml.Marshal(k)
	return out, false, err
}

// originFS is the disk, except that the top kustomization reads as
// askOrigins made it.
type originFS struct {
	filesys.FileSystem
	file string
	data []byte
	// skim and skimmed: KustomizeOptions.Skim, and whether it took
	// anything out.
	skim    func(apiVersion, kind string) bool
	skimmed bool
}

func (f *originFS) ReadFile(path string) ([]byte, error) {
	if abs, err := filepath.Abs(path); err == nil && abs == f.file {
		return slices.Clone(f.data), nil
	}
	b, err := f.FileSystem.ReadFile(path)
	if err != nil || f.skim == nil || len(b) < skimFrom {
		return b, err
	}
	if out, ok := skimDocs(b, f.skim); ok {
		f.skimmed = true
		return out, nil
	}
	return b, nil
}

// skimDocs keeps only apiVersion, kind and metadata of each document of b
// whose kind skim names; ok is false when it keeps all of b (nothing to
// skim, or b does not parse: kustomize then says why).
func skimDocs(b []byte, skim func(apiVersion, kind string) bool) (out []byte, ok bool) {
	dec := yaml3.NewDecoder(bytes.NewReader(b))
	var docs []*yaml3.Node
	changed := false
	for {
		var n yaml3.Node
		if err := dec.Decode(&n); err != nil {
			if !errors.Is(err, io.EOF) {
				return nil, false
			}
			break
		}
		if len(n.Content) == 1 && n.Content[0].Kind == yaml3.MappingNode {
			m := n.Content[0]
			if skim(scalarOf(m, "apiVersion"), scalarOf(m, "kind")) {
				var kept []*yaml3.Node
				for i := 0; i+1 < len(m.Content); i += 2 {
					switch m.Content[i].Value {
					case "apiVersion", "kind", "metadata":
						kept = append(kept, m.Content[i], m.Content[i+1])
					}
				}
				changed = changed || len(kept) < len(m.Content)
				m.Content = kept
			}
		}
		docs = append(docs, &n)
	}
	if !changed {
		return nil, false
	}
	var buf bytes.Buffer
	enc := yaml3.NewEncoder(&buf)
	enc.SetIndent(2)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return nil, false
		}
	}
	if enc.Close() != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

func scalarOf(m *yaml3.Node, key string) string {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i+1].Kind == yaml3.ScalarNode {
			return m.Content[i+1].Value
		}
	}
	return ""
}

// refuseRemote walks the kustomizations reachable from dir and refuses
// any resource, base or component that is not on the local file system.
// kustomize itself would clone it with git or fetch it over HTTP; kubegap
// fetches nothing.
func refuseRemote(dir string, seen map[string]bool) error {
	abs, err := filepath.Abs(dir)
	if err != nil || seen[abs] {
		return err
	}
	seen[abs] = true
	kfile, err := kustomizationFile(dir)
	if err != nil {
		return nil // a plain folder of resources, or kustomize's own error later
	}
	raw, err := os.ReadFile(kfile)
	if err != nil {
		return nil
	}
	var k types.Kustomization
	if err := yaml.Unmarshal(raw, &k); err != nil {
		return nil // kustomize reports it, with its own words
	}
	var refs []string
	refs = append(refs, k.Resources...)
	//lint:ignore SA1019 kustomize still reads bases, so a remote one must be refused too
	refs = append(refs, k.Bases...)
	refs = append(refs, k.Components...)
	refs = append(refs, k.Generators...)
	refs = append(refs, k.Transformers...)
	refs = append(refs, k.Validators...)
	for _, ref := range refs {
		if strings.Contains(ref, "\n") {
			continue // an inline generator or transformer
		}
		p := filepath.Join(dir, ref)
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				if err := refuseRemote(p, seen); err != nil {
					return err
				}
			}
			continue
		}
		if looksRemote(ref) {
			return fmt.Errorf("%s: %q is a remote base, which kubegap does not fetch (it reads only the local file system): vendor it into a local folder and point the kustomization there, or build it with kustomize and scan the output with -f -", kfile, ref)
		}
	}
	return nil
}

// looksRemote tells a URL or a git repository reference (the forms
// kustomize would fetch) from a local path that does not exist.
func looksRemote(ref string) bool {
	l := strings.ToLower(ref)
	for _, p := range []string{"http://", "https://", "git::", "git@", "ssh://", "file://", "github.com/", "gitlab.com/", "bitbucket.org/"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return strings.Contains(l, "?ref=") || strings.Contains(l, ".git//") || strings.Contains(l, "//") && strings.Contains(strings.SplitN(l, "//", 2)[0], ".")
}

// fileObject is an object as it stands in a resource file.
type fileObject struct {
	kind, name string
	line       int
}

type lineFinder struct {
	cache map[string][]fileObject
}

// find is the line where the object of this kind, named name after the
// build, starts in file; 0 when the file holds no single object that can
// be it (kustomize may have prefixed or suffixed the name, so a name is
// matched when it is part of the built one).
func (l *lineFinder) find(file, kind, name string) int {
	objs, ok := l.cache[file]
	if !ok {
		objs = readObjects(file)
		l.cache[file] = objs
	}
	var sameKind, named []fileObject
	for _, o := range objs {
		if o.kind != kind {
			continue
		}
		sameKind = append(sameKind, o)
		if o.name != "" && strings.Contains(name, o.name) {
			named = append(named, o)
		}
	}
	if len(named) == 1 {
		return named[0].line
	}
	if len(sameKind) == 1 && len(named) == 0 && sameKind[0].name == "" {
		return sameKind[0].line
	}
	return 0
}

func readObjects(file string) []fileObject {
	f, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var out []fileObject
	err = manifest.Read(file, bytes.NewReader(f), nil, func(d manifest.Doc) error {
		var h struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		_ = yaml.Unmarshal(d.JSON, &h)
		out = append(out, fileObject{kind: d.Kind, name: h.Metadata.Name, line: d.Line})
		return nil
	})
	if err != nil {
		return nil // a file kustomize read but the manifest reader cannot: no line
	}
	return out
}

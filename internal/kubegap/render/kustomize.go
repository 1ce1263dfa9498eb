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
	"sigs.k8s.io/kustomize/api/resmap"
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
	// KustomizeOrigins places every object by kustomize's origin
	// annotations alone, not by the tags kubegap puts on each resource
	// file's objects first (the same places, TestTaggedBuildSame, in half
	// the time: with origins asked for, kustomize records every
	// transformer on every object too).
	KustomizeOrigins bool
}

// skimFrom is the size of the resource files Skim looks into: a small
// file costs kustomize little, and reading it twice would cost more.
const skimFrom = 32 << 10

// KustomizeWith is Kustomize with options.
func KustomizeWith(dir string, o KustomizeOptions) ([]Doc, error) {
	docs, _, err := kustomize(dir, o)
	return docs, err
}

// kustomize is KustomizeWith, and says whether the objects were placed by
// their tags (tagged) or by kustomize's origins.
func kustomize(dir string, o KustomizeOptions) (docs []Doc, tagged bool, err error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, false, fmt.Errorf("kustomization %s: %w", dir, unwrapPath(err))
	}
	if !st.IsDir() {
		return nil, false, fmt.Errorf("kustomization %s: -k takes the folder that holds kustomization.yaml, not a file", dir)
	}
	kfile, err := kustomizationFile(dir)
	if err != nil {
		return nil, false, err
	}
	if err := refuseRemote(dir, map[string]bool{}); err != nil {
		return nil, false, err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, false, err
	}
	raw, err := os.ReadFile(kfile)
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", kfile, unwrapPath(err))
	}
	withOrigins, userAsked, err := askOrigins(raw)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", kfile, err)
	}
	fsys := &originFS{FileSystem: filesys.MakeFsOnDisk(), file: filepath.Join(absDir, filepath.Base(kfile)), skim: o.Skim}
	// The fast way first: each resource file's objects tagged with the
	// file (tagFS), built without kustomize's origins.
	if !userAsked && !o.KustomizeOrigins {
		if files, generated, ok := resourceFiles(absDir); ok {
			fsys.data, fsys.tags = raw, files
			m, err := fsys.build(absDir)
			if err == nil {
				if docs, ok := taggedDocs(m, dir, generated); ok {
					return docs, true, nil
				}
			}
		}
	}
	// kustomize's origins: exact for every object, generated ones too.
	fsys.data, fsys.tags, fsys.skimmed = withOrigins, nil, false
	m, err := fsys.build(absDir)
	if err != nil {
		return nil, false, fmt.Errorf("build kustomization %s: %w", dir, err)
	}
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
			return nil, false, fmt.Errorf("build kustomization %s: %w", dir, err)
		}
	}
	docs, err = locate(m, places, dir)
	return docs, false, err
}

type located struct{ file, kind, name string }

// locate is the built objects as documents at their places, with the
// line where each starts in its file when it can be told apart there.
func locate(m resmap.ResMap, places []located, dir string) ([]Doc, error) {
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

// build runs kustomize on f; when the skimmed documents make the build
// fail, it builds again whole.
func (f *originFS) build(absDir string) (resmap.ResMap, error) {
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(f, absDir)
	if err != nil && f.skimmed {
		f.skim, f.skimmed = nil, false // the skimmed objects were needed
		m, err = krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(f, absDir)
	}
	return m, err
}

// sourceTag is the annotation tagFS gives each object of a resource file:
// the file's path from the kustomization's folder. kustomize carries it
// through its patches and transformers like any annotation, and taggedDocs
// takes it off.
const sourceTag = "kubegap.internal/source"

// taggedDocs locates each object of m at the file its tag names, and takes
// the tags off. An object with no tag that a ConfigMap or Secret generator
// made (its name holds the name of exactly one generator of its kind in
// generated) is at the kustomization that configured it. ok is false when
// another object has no tag (a List was expanded, a patch replaced the
// annotations): then kustomize's own origins must say where it came from.
func taggedDocs(m resmap.ResMap, dir string, generated map[string]string) ([]Doc, bool) {
	var places []located
	for _, r := range m.Resources() {
		ann := r.GetAnnotations()
		rel, ok := ann[sourceTag]
		if !ok {
			rel = generatorOf(generated, r.GetKind(), r.GetName())
			if rel == "" {
				return nil, false
			}
			places = append(places, located{file: filepath.Join(dir, filepath.FromSlash(rel)), kind: r.GetKind(), name: r.GetName()})
			continue
		}
		delete(ann, sourceTag)
		if err := r.SetAnnotations(ann); err != nil {
			return nil, false
		}
		places = append(places, located{file: filepath.Join(dir, filepath.FromSlash(rel)), kind: r.GetKind(), name: r.GetName()})
	}
	docs, err := locate(m, places, dir)
	return docs, err == nil
}

// generatorOf is the kustomization whose generator made the object kind/
// name, or "" when not exactly one generator's name is in the name.
func generatorOf(generated map[string]string, kind, name string) string {
	found := ""
	for key, kfile := range generated {
		k, gname, _ := strings.Cut(key, "/")
		if k != kind || !strings.Contains(name, gname) {
			continue
		}
		if found != "" || kfile == "" {
			return ""
		}
		found = kfile
	}
	return found
}

// resourceFiles is every file the kustomization in absDir takes as a
// resource, through its bases and components, each with its path from
// absDir. ok is false where the walk cannot tell (a kustomization that does
// not parse, a resource that is neither file nor folder).
func resourceFiles(absDir string) (files map[string]string, generated map[string]string, ok bool) {
	out := map[string]string{}
	generated = map[string]string{}
	seen, patches := map[string]bool{}, map[string]bool{}
	var walk func(dir string) bool
	walk = func(dir string) bool {
		if seen[dir] {
			return true
		}
		seen[dir] = true
		kfile, err := kustomizationFile(dir)
		if err != nil {
			return false
		}
		raw, err := os.ReadFile(kfile)
		if err != nil {
			return false
		}
		var k types.Kustomization
		if err := yaml.Unmarshal(raw, &k); err != nil {
			return false
		}
		if len(k.Generators) > 0 {
			return false // generator plugins: what they make is not named here
		}
		krel, err := filepath.Rel(absDir, kfile)
		if err != nil {
			return false
		}
		for _, g := range k.ConfigMapGenerator {
			generated["ConfigMap/"+g.Name] = once(generated, "ConfigMap/"+g.Name, filepath.ToSlash(krel))
		}
		for _, g := range k.SecretGenerator {
			generated["Secret/"+g.Name] = once(generated, "Secret/"+g.Name, filepath.ToSlash(krel))
		}
		refs := append(slices.Clone(k.Resources), k.Components...)
		//lint:ignore SA1019 kustomize still reads bases
		refs = append(refs, k.Bases...)
		// A file that is a patch as well as a resource is not tagged: the
		// patch would carry its tag onto the objects it patches.
		for _, p := range k.Patches {
			patches[filepath.Join(dir, p.Path)] = true
		}
		//lint:ignore SA1019 kustomize still reads them
		for _, p := range k.PatchesStrategicMerge {
			patches[filepath.Join(dir, string(p))] = true
		}
		//lint:ignore SA1019 kustomize still reads them
		for _, p := range k.PatchesJson6902 {
			patches[filepath.Join(dir, p.Path)] = true
		}
		for _, ref := range refs {
			p := filepath.Join(dir, ref)
			fi, err := os.Stat(p)
			switch {
			case err != nil:
				return false
			case fi.IsDir():
				if !walk(p) {
					return false
				}
			default:
				rel, err := filepath.Rel(absDir, p)
				if err != nil {
					return false
				}
				out[p] = filepath.ToSlash(rel)
			}
		}
		return true
	}
	if !walk(absDir) {
		return nil, nil, false
	}
	for p := range patches {
		delete(out, p)
	}
	return out, generated, true
}

// once is value, or "" when key already has another: a name two
// kustomizations generate places neither.
func once(m map[string]string, key, value string) string {
	if old, seen := m[key]; seen && old != value {
		return ""
	}
	return value
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
	// tags: the resource files (absolute path → path from the
	// kustomization), whose objects get sourceTag.
	tags map[string]string
}

func (f *originFS) ReadFile(path string) ([]byte, error) {
	if abs, err := filepath.Abs(path); err == nil && abs == f.file {
		return slices.Clone(f.data), nil
	}
	b, err := f.FileSystem.ReadFile(path)
	if err != nil {
		return b, err
	}
	var tag string
	if f.tags != nil {
		if abs, err := filepath.Abs(path); err == nil {
			tag = f.tags[abs]
		}
	}
	skim := f.skim
	if len(b) < skimFrom {
		skim = nil
	}
	if tag == "" && skim == nil {
		return b, nil
	}
	out, skimmed, ok := editDocs(b, skim, tag)
	if !ok {
		return b, nil
	}
	f.skimmed = f.skimmed || skimmed
	return out, nil
}

// editDocs rewrites the documents of b: those whose kind skim names (when
// skim is set) keep only apiVersion, kind and metadata, and every object
// gets the annotation sourceTag: tag (when tag is set). ok is false when it
// changes nothing, or b does not parse (kustomize then says why).
func editDocs(b []byte, skim func(apiVersion, kind string) bool, tag string) (out []byte, skimmed, ok bool) {
	dec := yaml3.NewDecoder(bytes.NewReader(b))
	var docs []*yaml3.Node
	changed := false
	for {
		var n yaml3.Node
		if err := dec.Decode(&n); err != nil {
			if !errors.Is(err, io.EOF) {
				return nil, false, false
			}
			break
		}
		if len(n.Content) == 1 && n.Content[0].Kind == yaml3.MappingNode {
			m := n.Content[0]
			if skim != nil && skim(scalarOf(m, "apiVersion"), scalarOf(m, "kind")) {
				var kept []*yaml3.Node
				for i := 0; i+1 < len(m.Content); i += 2 {
					switch m.Content[i].Value {
					case "apiVersion", "kind", "metadata":
						kept = append(kept, m.Content[i], m.Content[i+1])
					}
				}
				if len(kept) < len(m.Content) {
					changed, skimmed = true, true
				}
				m.Content = kept
			}
			if tag != "" && scalarOf(m, "kind") != "" {
				if !annotate(m, sourceTag, tag) {
					return nil, false, false
				}
				changed = true
			}
		}
		docs = append(docs, &n)
	}
	if !changed {
		return nil, false, false
	}
	var buf bytes.Buffer
	enc := yaml3.NewEncoder(&buf)
	enc.SetIndent(2)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return nil, false, false
		}
	}
	if enc.Close() != nil {
		return nil, false, false
	}
	return buf.Bytes(), skimmed, true
}

// annotate sets metadata.annotations[key] = value in the object m,
// making the mappings it lacks; false when metadata or annotations is
// something else than a mapping.
func annotate(m *yaml3.Node, key, value string) bool {
	child := func(n *yaml3.Node, k string) *yaml3.Node {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				v := n.Content[i+1]
				if v.Kind == yaml3.ScalarNode && (v.Tag == "!!null" || v.Value == "") {
					v.Kind, v.Tag, v.Value = yaml3.MappingNode, "!!map", ""
				}
				return v
			}
		}
		v := &yaml3.Node{Kind: yaml3.MappingNode, Tag: "!!map"}
		n.Content = append(n.Content, &yaml3.Node{Kind: yaml3.ScalarNode, Tag: "!!str", Value: k}, v)
		return v
	}
	meta := child(m, "metadata")
	if meta.Kind != yaml3.MappingNode {
		return false
	}
	ann := child(meta, "annotations")
	if ann.Kind != yaml3.MappingNode {
		return false
	}
	ann.Content = append(ann.Content, &yaml3.Node{Kind: yaml3.ScalarNode, Tag: "!!str", Value: key}, &yaml3.Node{Kind: yaml3.ScalarNode, Tag: "!!str", Value: value, Style: yaml3.DoubleQuotedStyle})
	return true
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

package kubegap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
	"github.com/incidentlib/incidentlib/internal/lazyre"
)

// Input says what an offline scan read: every report carries it, so that a
// scan that read little never looks like a clean one.
type Input struct {
	// Files is the number of files read (standard input counts as one).
	Files int `json:"files"`
	// Objects is the number of Kubernetes objects in them.
	Objects int `json:"objects"`
	// Checked is the number of objects the checks read.
	Checked int `json:"objects_checked"`
	// SkippedFiles are the files and folders not read, each with why.
	SkippedFiles []manifest.Skip `json:"skipped_files"`
	// SkippedObjects counts the objects the checks did not read, by reason.
	SkippedObjects []SkippedObjects `json:"skipped_objects"`
	// Namespace is the namespace objects without one were given.
	Namespace string `json:"namespace,omitempty"`
	// KubeVersion is the Kubernetes release the input was read for.
	KubeVersion string `json:"kube_version,omitempty"`

	paths []string
}

// SkippedObjects is a number of objects not read, and why.
type SkippedObjects struct {
	Reason string   `json:"reason"`
	Count  int      `json:"count"`
	Kinds  []string `json:"kinds,omitempty"`
}

// Reasons objects are skipped.
const (
	SkipUnknownKind = "kind no check reads"
	SkipNotNeeded   = "not needed by the selected checks"
	SkipProblem     = "not read: see problems"
	SkipDuplicate   = "duplicate: see problems"
)

// ReadOptions says how to read files.
type ReadOptions struct {
	// Namespace is what objects without metadata.namespace get, as with
	// kubectl apply -n; "" means "default".
	Namespace string
	// NamespaceSet means -n was given: an object in another namespace is
	// a problem, as kubectl apply -n would refuse it.
	NamespaceSet bool
	// KubeVersion is the target Kubernetes; zero means the newest.
	KubeVersion manifest.KubeVersion
	// Streams are read after the paths, each under its name (rendered
	// Helm or kustomize output, for one).
	Streams []Stream
	// PlainFolders are paths of folders whose files are read as they are
	// although they hold a kustomization file (otherwise such a folder is
	// a problem that says to build it).
	PlainFolders map[string]bool
}

// Stream is manifests that come from elsewhere than a path.
type Stream struct {
	Name string
	R    io.Reader
	// FixedLine places every object of the stream at Line of Name (0: no
	// line), as for a rendered template, whose output lines are not its
	// own; otherwise objects are at their lines in the stream.
	FixedLine bool
	Line      int
	// FromTemplate: Name is the chart template that rendered the stream.
	FromTemplate bool
}

// ReadFiles is ReadInput with the defaults that stops at the first
// error-level problem; the notes say what was skipped. Tests of fixtures,
// which must read whole, use it.
func ReadFiles(paths []string, stdin io.Reader, cs []*checks.Check) (*inventory.Inventory, []string, error) {
	inv, in, problems, err := ReadInput(paths, stdin, cs, ReadOptions{})
	if err != nil {
		return nil, nil, err
	}
	for _, p := range problems {
		if p.Level == manifest.LevelError {
			return nil, nil, &manifest.Error{File: p.File, Line: p.Line, Msg: p.Message}
		}
	}
	var notes []string
	for _, so := range in.SkippedObjects {
		notes = append(notes, fmt.Sprintf("skipped %d %s (%s): %s", so.Count, plural(so.Count, "object", "objects"), so.Reason, strings.Join(so.Kinds, ", ")))
	}
	return inv, notes, nil
}

// ReadInput reads the objects of the kinds cs need from paths ("-" reads
// stdin). Nothing in the input stops it: what cannot be read becomes a
// problem and the rest is read. Objects of other kinds are counted and
// skipped. Every kind cs need counts as read: an offline input is taken as
// the whole truth about the kinds it could hold. It fails only when a path
// does not exist or when the input holds no Kubernetes object at all.
func ReadInput(paths []string, stdin io.Reader, cs []*checks.Check, o ReadOptions) (*inventory.Inventory, *Input, []manifest.Problem, error) {
	rd := newReading(stdin, cs, o)
	if err := rd.readAll(paths); err != nil {
		return nil, nil, nil, err
	}
	for _, st := range rd.o.Streams {
		paths = append(paths, st.Name)
	}
	problems := rd.summarize()
	rd.in.paths = displayPaths(paths)
	if err := nothingRead(rd.r.Objects, rd.in, problems, paths); err != nil {
		return nil, nil, nil, err
	}
	return rd.inv, rd.in, problems, nil
}

// reading is one ReadInput under way: what it reads into, and the
// objects it skipped so far, by reason and kind.
type reading struct {
	o       ReadOptions
	need    map[inventory.Kind]bool
	inv     *inventory.Inventory
	in      *Input
	r       *manifest.Reader
	skipped map[string]map[string]int
}

// newReading applies o's defaults, marks every kind cs need as read and
// sets up the reader, which decodes only the objects read wants.
func newReading(stdin io.Reader, cs []*checks.Check, o ReadOptions) *reading {
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.KubeVersion.Minor == 0 {
		o.KubeVersion = manifest.NewestKube
	}
	need := map[inventory.Kind]bool{}
	for _, k := range checks.Kinds(cs) {
		need[k] = true
	}
	need[inventory.Pod] = true // counted, for pod estimates
	inv := inventory.New()
	for k := range need {
		inv.MarkRead(k)
	}
	rd := &reading{o: o, need: need, inv: inv, skipped: map[string]map[string]int{},
		in: &Input{Namespace: o.Namespace, KubeVersion: o.KubeVersion.String(), SkippedFiles: []manifest.Skip{}, SkippedObjects: []SkippedObjects{}}}
	rd.r = &manifest.Reader{Want: rd.wants, Stdin: stdin, PlainFolders: o.PlainFolders}
	return rd
}

// wants says whether an object's body is to be decoded: the kinds the
// checks need, and the objects that become problems when read.
func (rd *reading) wants(apiVersion, kind string) bool {
	if _, gone := manifest.Removed(apiVersion, kind, rd.o.KubeVersion); gone {
		return true // read, to name it in the problem
	}
	if isBinding(apiVersion, kind) {
		return true // validated as the API server would
	}
	k, ok := inventory.Lookup(apiVersion, kind)
	return ok && rd.need[k] && !inventory.Info(k).CountOnly
}

// skip counts an object not read.
func (rd *reading) skip(reason, kind string) {
	if rd.skipped[reason] == nil {
		rd.skipped[reason] = map[string]int{}
	}
	rd.skipped[reason][kind]++
}

// readAll reads the paths, then each stream, stopping at the first
// error (a path that does not exist).
func (rd *reading) readAll(paths []string) error {
	err := rd.r.ReadPaths(paths, rd.read)
	for _, st := range rd.o.Streams {
		if err == nil {
			fn := rd.read
			if st.FixedLine {
				fn = func(d manifest.Doc) error {
					d.Line = st.Line
					d.FromTemplate = st.FromTemplate
					return rd.read(d)
				}
			}
			err = rd.r.ReadStream(st.Name, st.R, fn)
		}
	}
	return err
}

// read takes one document: a removed API version or an invalid binding
// is a problem, a kind no selected check reads is counted and skipped,
// and an object the checks read goes into the inventory.
func (rd *reading) read(d manifest.Doc) error {
	// The object's namespace and name come from its one decode
	// (AddObject); the rare paths that report an object before or
	// without that decode read them with metaOf.
	where := manifest.Problem{File: d.File, Line: d.Line, Kind: d.Kind}
	if msg := rd.refusal(d); msg != "" {
		where.Namespace, where.Name = metaOf(d.JSON)
		where.Message = msg
		rd.r.Problem(where)
		rd.skip(SkipProblem, d.Kind)
		return nil
	}
	k, ok := inventory.Lookup(d.APIVersion, d.Kind)
	switch {
	case !ok:
		rd.skip(SkipUnknownKind, d.APIVersion+" "+d.Kind)
	case !rd.need[k]:
		rd.skip(SkipNotNeeded, d.Kind)
	case inventory.Info(k).CountOnly:
		rd.inv.AddCount(k, 1, false)
		rd.in.Checked++
	default:
		rd.addObject(k, d, where)
	}
	return nil
}

// refusal is why the API server would refuse the object, or "": an API
// version the target Kubernetes no longer serves, or a binding it would
// reject.
func (rd *reading) refusal(d manifest.Doc) string {
	if rm, gone := manifest.Removed(d.APIVersion, d.Kind, rd.o.KubeVersion); gone {
		return rm.Message(rd.o.KubeVersion)
	}
	if isBinding(d.APIVersion, d.Kind) {
		return validateBinding(d.Kind, d.JSON)
	}
	return ""
}

// addObject files an object of kind k in the inventory, and reports what
// stands in its way or is doubtful about it: another namespace than -n, a
// second copy, a body that does not decode, template text left in it.
func (rd *reading) addObject(k inventory.Kind, d manifest.Doc, where manifest.Problem) {
	filed, dropped, err := rd.file(k, d)
	ref := filed.Ref
	if err != nil {
		where.Namespace, where.Name = metaOf(d.JSON)
	} else {
		where.Namespace, where.Name = filed.Namespace, filed.Name
	}
	if rd.o.NamespaceSet && where.Namespace != "" && where.Namespace != rd.o.Namespace && inventory.Info(k).Namespaced {
		p := where
		p.Level = manifest.LevelWarning
		p.Message = fmt.Sprintf("the object's namespace %s differs from -n %s: kubectl apply -n %s would refuse it; scanned in %s", where.Namespace, rd.o.Namespace, rd.o.Namespace, where.Namespace)
		rd.r.Problem(p)
	}
	var dup *inventory.DuplicateError
	switch {
	case errors.As(err, &dup):
		p := where
		p.Namespace = dup.Ref.Namespace
		p.Message = fmt.Sprintf("the same %s (group, kind, namespace and name) is also at %s:%d; only that first copy was scanned: remove one of them", d.Kind, dup.First.File, dup.First.Line)
		p.Also = []manifest.Place{{File: dup.First.File, Line: dup.First.Line}}
		rd.r.Problem(p)
		rd.skip(SkipDuplicate, d.Kind)
		return
	case err != nil:
		rd.r.Problem(decodeProblem(where, d.JSON, err))
		rd.skip(SkipProblem, d.Kind)
		return
	case ref.Name == "" && ref.Kind == "":
		rd.skip(SkipNotNeeded, d.Kind)
		return
	}
	rd.in.Checked++
	where.Namespace = ref.Namespace
	rd.warnTemplates(ref, d, where, dropped)
}

// file adds the object to the inventory. An object that does not decode
// for a template placeholder in a field that is no string (a quantity, a
// number) is filed without those fields, which it returns: they are
// unknown, and the rest of the object is scanned.
func (rd *reading) file(k inventory.Kind, d manifest.Doc) (inventory.Filed, []manifest.PlaceholderField, error) {
	src := inventory.Source{File: d.File, Line: d.Line, Template: d.Template, FromTemplate: d.FromTemplate}
	filed, err := rd.inv.AddObject(k, d.JSON, src, rd.o.Namespace)
	if err == nil || errors.As(err, new(*inventory.DuplicateError)) {
		return filed, nil, err
	}
	decodes := func(b []byte) bool {
		_, err := inventory.New().AddObject(k, b, inventory.Source{}, rd.o.Namespace)
		return err == nil
	}
	fixed, dropped, ok := manifest.DropPlaceholders(d.JSON, decodes)
	if !ok {
		return filed, nil, err
	}
	filed, err = rd.inv.AddObject(k, fixed, src, rd.o.Namespace)
	return filed, dropped, err
}

// warnTemplates marks the fields filed without their placeholder unknown,
// and warns of each, and of template text left in a string value.
func (rd *reading) warnTemplates(ref inventory.Ref, d manifest.Doc, where manifest.Problem, dropped []manifest.PlaceholderField) {
	where.Level = manifest.LevelWarning
	for _, f := range dropped {
		rd.inv.MarkUnknown(ref, f.Path)
		p := where
		p.Line = locate(d.File, d.Line, f.Text)
		p.Message = fmt.Sprintf("unrendered template placeholder `%s` in %s: render the template first; that field is unknown to the checks (none reports it missing), and the rest of the object was scanned", f.Text, f.Path)
		rd.r.Problem(p)
	}
	if t, goTmpl := manifest.TemplateText(d.JSON); t != "" && !placeholderDropped(dropped, t) {
		p := where
		p.Line = locate(d.File, d.Line, t)
		if goTmpl {
			p.Message = fmt.Sprintf("unrendered Go template `%s` in a string value: render the template first (helm template, or --chart DIR); scanned as written", t)
		} else {
			p.Message = fmt.Sprintf("unrendered template placeholder `%s`: render the template first; scanned as written", t)
		}
		rd.r.Problem(p)
	}
}

// summarize fills in what was read (files, objects, the files and the
// objects skipped, by reason) and returns the problems, by file and line.
func (rd *reading) summarize() []manifest.Problem {
	in, r := rd.in, rd.r
	in.Files, in.Objects = r.Files, r.Objects
	in.SkippedFiles = append(in.SkippedFiles, r.Skipped...)
	for reason, byKind := range rd.skipped {
		so := SkippedObjects{Reason: reason}
		for k, n := range byKind {
			so.Count += n
			so.Kinds = append(so.Kinds, k)
		}
		sort.Strings(so.Kinds)
		in.SkippedObjects = append(in.SkippedObjects, so)
	}
	sort.Slice(in.SkippedObjects, func(i, j int) bool { return in.SkippedObjects[i].Reason < in.SkippedObjects[j].Reason })
	problems := r.Problems
	if problems == nil {
		problems = []manifest.Problem{}
	}
	sort.SliceStable(problems, func(i, j int) bool {
		if problems[i].File != problems[j].File {
			return problems[i].File < problems[j].File
		}
		return problems[i].Line < problems[j].Line
	})
	return problems
}

// nothingRead is the error of an input from which no object was read (of
// objects in all, or none the checks could read and at least one
// error-level problem): a scan that read nothing must never look like a
// clean one (an empty folder, a failed "helm template … | kubegap scan -f
// -", or objects none of which could be read). It lists the problems.
func nothingRead(objects int, in *Input, problems []manifest.Problem, paths []string) error {
	errorProblems := 0
	for _, p := range problems {
		if p.Level == manifest.LevelError {
			errorProblems++
		}
	}
	if objects > 0 && (in.Checked > 0 || errorProblems == 0) {
		return nil
	}
	var msg string
	switch {
	case objects == 0 && errorProblems == 0:
		msg = fmt.Sprintf("the input (%s) holds no Kubernetes object", strings.Join(displayPaths(paths), ", "))
	default:
		msg = fmt.Sprintf("no Kubernetes object could be read from the input (%s)", strings.Join(displayPaths(paths), ", "))
	}
	if why := skipSummary(in.SkippedFiles); why != "" {
		msg += " (" + why + ")"
	}
	if objects == 0 {
		msg += "; check the paths, and render Helm charts or kustomize folders first (--chart DIR, -k DIR, or helm template …, kubectl kustomize …)"
	}
	for _, p := range problems {
		msg += "\n  " + p.String()
	}
	return errors.New(msg)
}

// placeholderDropped says whether the template text t is that of a field
// left out (already named in a warning).
func placeholderDropped(dropped []manifest.PlaceholderField, t string) bool {
	for _, f := range dropped {
		if f.Text == t {
			return true
		}
	}
	return false
}

// skipSummary says how many files were skipped, by reason.
func skipSummary(sk []manifest.Skip) string {
	if len(sk) == 0 {
		return ""
	}
	return fmt.Sprintf("%d %s skipped: %s", len(sk), plural(len(sk), "file", "files"), SkipReasons(sk))
}

// SkipReasons counts skipped files by reason, in the order the reasons
// first came: "2 not Kubernetes: …; 1 Helm chart: use --chart".
func SkipReasons(sk []manifest.Skip) string {
	by := map[string]int{}
	var order []string
	for _, s := range sk {
		if by[s.Reason] == 0 {
			order = append(order, s.Reason)
		}
		by[s.Reason]++
	}
	parts := make([]string, len(order))
	for i, r := range order {
		parts[i] = fmt.Sprintf("%d %s", by[r], r)
	}
	return strings.Join(parts, "; ")
}

// NothingChecked is an error when the checks read none of the input's
// objects (all of kinds no selected check reads): such a scan says nothing
// and must not pass as a clean one.
func (in *Input) NothingChecked() error {
	if in == nil || in.Checked > 0 {
		return nil
	}
	var kinds []string
	for _, so := range in.SkippedObjects {
		kinds = append(kinds, fmt.Sprintf("%d %s: %s", so.Count, so.Reason, strings.Join(so.Kinds, ", ")))
	}
	return fmt.Errorf("none of the %d Kubernetes %s in the input (%s) is of a kind the selected checks read (%s): nothing was checked",
		in.Objects, plural(in.Objects, "object", "objects"), strings.Join(in.paths, ", "), strings.Join(kinds, "; "))
}

// SkipSummary says how many files were skipped, by reason ("" for none).
func (in *Input) SkipSummary() string { return skipSummary(in.SkippedFiles) }

// metaOf reads an object's namespace and name as written, whatever else
// is wrong with it.
func metaOf(raw []byte) (namespace, name string) {
	var m struct {
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(raw, &m)
	return m.Metadata.Namespace, m.Metadata.Name
}

// decodeProblem explains an object that could not be decoded; a template
// placeholder in it is the usual cause, and then the fix is to render.
func decodeProblem(where manifest.Problem, raw []byte, err error) manifest.Problem {
	p := where
	msg := err.Error()
	if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, string(where.Kind)) {
		msg = msg[i+2:] // the kind and name are in the problem already
	}
	t, goTmpl := manifest.TemplateText(raw)
	if t == "" {
		// A template action can parse as YAML (memory: {{ x }} is a flow
		// mapping) and leave no trace in the JSON: look at the text.
		text := docText(where.File, where.Line)
		t, goTmpl = manifest.TemplateText(text)
		if t == "" {
			if m := shellVarRE().Find(text); m != nil {
				t = string(m)
			}
		}
	}
	if t != "" {
		p.Line = locate(where.File, where.Line, t)
		if goTmpl {
			p.Message = fmt.Sprintf("unrendered Go template `%s`: render the template first (helm template, or --chart DIR); the object was not scanned (%s)", t, msg)
		} else {
			p.Message = fmt.Sprintf("unrendered template placeholder `%s`: render the template first; the object was not scanned (%s)", t, msg)
		}
		return p
	}
	p.Message = fmt.Sprintf("%s; fix the field, the object was not scanned", msg)
	return p
}

// shellVarRE finds the $NAME variables that sed and envsubst templates
// leave (coredns.yaml.sed); looked for only in objects that failed to
// decode, where they are the likely cause.
var shellVarRE = lazyre.New(`\$\{?[A-Z][A-Z0-9_]*\}?`)

// docText returns the text of the YAML document of file that starts at
// line from (up to the next "---"), or nil for standard input.
func docText(file string, from int) []byte {
	if file == manifest.StdinName {
		return nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), manifest.MaxObjectJSON)
	var b bytes.Buffer
	n := 0
	for sc.Scan() {
		n++
		if n < from {
			continue
		}
		if l := sc.Bytes(); n > from && (bytes.Equal(l, []byte("---")) || bytes.HasPrefix(l, []byte("--- "))) {
			break
		}
		b.Write(sc.Bytes())
		b.WriteByte('\n')
		if b.Len() > manifest.MaxObjectJSON {
			break
		}
	}
	return b.Bytes()
}

// locate finds the line, at or after from, of file that holds needle; it
// gives from back when it cannot tell (standard input, a changed file).
func locate(file string, from int, needle string) int {
	if file == manifest.StdinName {
		return from
	}
	f, err := os.Open(file)
	if err != nil {
		return from
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), manifest.MaxObjectJSON)
	n := 0
	for sc.Scan() {
		n++
		if n >= from && bytes.Contains(sc.Bytes(), []byte(needle)) {
			return n
		}
	}
	return from
}

func isBinding(apiVersion, kind string) bool {
	return apiVersion == "rbac.authorization.k8s.io/v1" && (kind == "ClusterRoleBinding" || kind == "RoleBinding")
}

// validateBinding says why the API server would reject a binding, as its
// validation does (roleRef and subjects), or "" when it would accept it.
func validateBinding(kind string, raw []byte) string {
	var b struct {
		RoleRef  rbacv1.RoleRef   `json:"roleRef"`
		Subjects []rbacv1.Subject `json:"subjects"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return "" // the decoder names the bad field
	}
	reject := "the API server rejects the binding, so it was not matched: "
	switch {
	// Defaults first, as the API server applies them: an empty apiGroup
	// becomes rbac.authorization.k8s.io for roleRef, User and Group.
	case b.RoleRef.APIGroup != rbacv1.GroupName && b.RoleRef.APIGroup != "":
		return reject + fmt.Sprintf("roleRef.apiGroup is %q: set it to %s", b.RoleRef.APIGroup, rbacv1.GroupName)
	case kind == "ClusterRoleBinding" && b.RoleRef.Kind != "ClusterRole":
		return reject + fmt.Sprintf("roleRef.kind is %q: a ClusterRoleBinding can only refer to a ClusterRole", b.RoleRef.Kind)
	case kind == "RoleBinding" && b.RoleRef.Kind != "Role" && b.RoleRef.Kind != "ClusterRole":
		return reject + fmt.Sprintf("roleRef.kind is %q: a RoleBinding refers to a Role or a ClusterRole", b.RoleRef.Kind)
	case b.RoleRef.Name == "":
		return reject + "roleRef.name is empty: name the role"
	}
	for i, s := range b.Subjects {
		at := fmt.Sprintf("subjects[%d]", i)
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			if s.APIGroup != "" {
				return reject + fmt.Sprintf("%s.apiGroup is %q: a ServiceAccount subject has apiGroup \"\"", at, s.APIGroup)
			}
			if s.Name == "" {
				return reject + at + ".name is empty: name the service account"
			}
			if s.Namespace == "" && kind == "ClusterRoleBinding" {
				return reject + fmt.Sprintf("%s (ServiceAccount %s) has no namespace: set %s.namespace to the service account's namespace", at, s.Name, at)
			}
		case rbacv1.UserKind, rbacv1.GroupKind:
			if s.APIGroup != rbacv1.GroupName && s.APIGroup != "" {
				return reject + fmt.Sprintf("%s.apiGroup is %q: a %s subject has apiGroup %s", at, s.APIGroup, s.Kind, rbacv1.GroupName)
			}
			if s.Name == "" {
				return reject + at + ".name is empty"
			}
		default:
			return reject + fmt.Sprintf("%s.kind is %q: use ServiceAccount, User or Group", at, s.Kind)
		}
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func displayPaths(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if p == "-" {
			p = "standard input"
		}
		out[i] = p
	}
	return out
}

package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/incidentlib/incidentlib/internal/lazyre"
)

// StdinName names standard input in Docs, problems and messages.
const StdinName = "<stdin>"

// Problem levels. An error-level problem means part of the input was not
// scanned; a warning means it was scanned but may not say what it will say
// once applied.
const (
	LevelError   = "error"
	LevelWarning = "warning"
)

// Problem is something in the input that kept an object (or a file) from
// being read whole, or that the user should fix before trusting the scan.
// Problems never stop a scan; --strict makes them fatal.
type Problem struct {
	File      string `json:"file"`
	Line      int    `json:"line,omitempty"`
	Level     string `json:"level"`
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	// Message says what is wrong and what to do.
	Message string `json:"message"`
	// Also lists other places the problem involves (the first copy of a
	// duplicate object, for instance).
	Also []Place `json:"also,omitempty"`
}

// Place is a file and line.
type Place struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
}

func (p Place) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}

// Object names the object a problem is about, or "" when it is unknown.
func (p Problem) Object() string {
	switch {
	case p.Kind == "":
		return ""
	case p.Name == "":
		return p.Kind
	case p.Namespace == "":
		return p.Kind + "/" + p.Name
	}
	return p.Kind + " " + p.Namespace + "/" + p.Name
}

func (p Problem) String() string {
	s := Place{p.File, p.Line}.String() + ": "
	if o := p.Object(); o != "" {
		s += o + ": "
	}
	return s + p.Message
}

// Skip is a file (or folder) that was not read, and why.
type Skip struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// Skip reasons, stable so that reports can count them.
const (
	SkipNotManifestExt = "not a .yaml, .yml or .json file (nor a .yaml template such as .yaml.base)"
	SkipHidden         = "hidden folder"
	SkipEmpty          = "empty: no document in it"
	SkipNotKubernetes  = "not Kubernetes: no document has apiVersion and kind"
	SkipHelmChart      = "Helm chart: use --chart"
	SkipKustomize      = "kustomize folder: use -k"
)

// Reader reads manifests without ever giving up on the whole input: a
// document that cannot be read becomes a Problem and reading goes on with
// the next one; a file that is not a Kubernetes manifest is skipped and
// counted. Only a path that does not exist, or an error from the caller's
// function, stops it.
type Reader struct {
	// Want is passed to Read (nil wants every object).
	Want Want
	// Stdin is what "-" reads.
	Stdin io.Reader
	// PlainFolders are folders, as given to ReadPaths, whose files are
	// read as they are although they hold a kustomization file.
	PlainFolders map[string]bool

	// Files is the number of files (and standard input) read.
	Files int
	// Objects is the number of Kubernetes objects read.
	Objects int
	// Skipped lists the files and folders not read.
	Skipped []Skip
	// Problems lists what could not be read, in input order.
	Problems []Problem
}

// Problem records p.
func (r *Reader) Problem(p Problem) {
	if p.Level == "" {
		p.Level = LevelError
	}
	r.Problems = append(r.Problems, p)
}

// fatal wraps an error from the caller's function so that it is passed on
// rather than turned into a problem.
type fatal struct{ err error }

func (f fatal) Error() string { return f.err.Error() }
func (f fatal) Unwrap() error { return f.err }

// ReadPaths reads each path: a file, a folder (every *.yaml, *.yml and
// *.json below it, in name order) or "-" for standard input, and calls fn
// for every object.
func (r *Reader) ReadPaths(paths []string, fn func(Doc) error) error {
	for _, p := range paths {
		if p == "-" {
			if err := r.readStdin(fn); err != nil {
				return err
			}
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, unwrapPathError(err))
		}
		if !st.IsDir() {
			if r.renderFirst(p, true) {
				continue
			}
			if err := r.readFile(p, fn); err != nil {
				return err
			}
			continue
		}
		var files []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					r.Skipped = append(r.Skipped, Skip{File: path, Reason: SkipHidden})
					return filepath.SkipDir
				}
				if r.renderFirst(path, false) {
					return filepath.SkipDir
				}
				return nil
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
				files = append(files, path)
			default:
				if templateName(path) {
					files = append(files, path) // read, so that its placeholders are named
					return nil
				}
				r.Skipped = append(r.Skipped, Skip{File: path, Reason: SkipNotManifestExt})
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("read %s: %w", p, unwrapPathError(err))
		}
		sort.Strings(files)
		for _, f := range files {
			if err := r.readFile(f, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// templateName reports whether path names a YAML template such as
// Kubernetes' own addons ship (coredns.yaml.base, .yaml.in, .yaml.sed).
func templateName(path string) bool {
	base := strings.ToLower(filepath.Base(path))
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	switch ext {
	case ".base", ".in", ".sed", ".tmpl", ".tpl", ".template", ".j2":
		return strings.HasSuffix(stem, ".yaml") || strings.HasSuffix(stem, ".yml")
	}
	return false
}

var kustomizationFiles = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// HoldsKustomization reports whether dir holds a kustomization file.
func HoldsKustomization(dir string) bool {
	for _, k := range kustomizationFiles {
		if exists(filepath.Join(dir, k)) {
			return true
		}
	}
	return false
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// renderFirst reports (and skips) a Helm chart or a kustomize folder: their
// files are inputs to a renderer, not what the API server would receive.
// For a file, the chart may be its folder or the folder above (templates/).
func (r *Reader) renderFirst(path string, isFile bool) bool {
	dirs := []string{path}
	if isFile {
		dirs = []string{filepath.Dir(path), filepath.Dir(filepath.Dir(path))}
		for _, k := range kustomizationFiles {
			if filepath.Base(path) == k {
				dir := filepath.Dir(path)
				r.Problem(Problem{File: path, Line: 1, Kind: "Kustomization",
					Message: fmt.Sprintf("this is a kustomize file: use -k %s (or kubectl kustomize %s | kubegap scan -f -)", dir, dir)})
				r.Skipped = append(r.Skipped, Skip{File: path, Reason: SkipKustomize})
				return true
			}
		}
	}
	for _, d := range dirs {
		if chart := filepath.Join(d, "Chart.yaml"); exists(chart) {
			what := "this folder is a Helm chart"
			if isFile {
				what = "this file belongs to the Helm chart " + d
			}
			r.Problem(Problem{File: chart, Line: 1,
				Message: fmt.Sprintf("%s: use --chart %s (or helm template %s | kubegap scan -f -)", what, d, d)})
			r.Skipped = append(r.Skipped, Skip{File: path, Reason: SkipHelmChart})
			return true
		}
		if isFile || r.PlainFolders[d] {
			continue // a plain file next to a kustomization is read as asked
		}
		for _, k := range kustomizationFiles {
			if kf := filepath.Join(d, k); exists(kf) {
				r.Problem(Problem{File: kf, Line: 1, Kind: "Kustomization",
					Message: fmt.Sprintf("this folder is a kustomize folder: use -k %s (or kubectl kustomize %s | kubegap scan -f -)", d, d)})
				r.Skipped = append(r.Skipped, Skip{File: path, Reason: SkipKustomize})
				return true
			}
		}
	}
	return false
}

func (r *Reader) readFile(path string, fn func(Doc) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, unwrapPathError(err))
	}
	defer f.Close()
	return r.readStream(path, f, func() (io.ReadCloser, error) { return os.Open(path) }, fn)
}

// maxReread caps what is kept of standard input, and the size of one
// document, for reading on after a broken document.
const maxReread = 64 << 20

// stdinKeep caps the copy of standard input kept for reading on after a
// broken document (Helm output is far smaller; a cluster dump is read once).
const stdinKeep = 32 << 20

func (r *Reader) readStdin(fn func(Doc) error) error {
	in := r.Stdin
	if in == nil {
		in = strings.NewReader("")
	}
	return r.ReadStream(StdinName, in, fn)
}

// ReadStream reads one stream of manifests named name in problems and
// Docs (rendered chart output, for one: its "# Source:" comments give each
// object its template), as ReadPaths reads a file.
func (r *Reader) ReadStream(name string, in io.Reader, fn func(Doc) error) error {
	keep := &cappedBuffer{max: stdinKeep}
	return r.readStream(name, io.TeeReader(in, keep), func() (io.ReadCloser, error) {
		if keep.over {
			return nil, errors.New(name + " is too large to read again")
		}
		return io.NopCloser(bytes.NewReader(keep.Bytes())), nil
	}, fn)
}

type cappedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if !c.over && c.Len()+len(p) <= c.max {
		c.Buffer.Write(p)
	} else if !c.over {
		c.over = true
		c.Reset()
	}
	return len(p), nil
}

// fileState is what one file gave.
type fileState struct {
	objects int
	// emitted holds the objects passed on, by place: a line and the
	// object's rank among those that start on it (a compact JSON List puts
	// every item on one line). onLine counts the objects of the pass under
	// way by line, so that a second pass finds the first one's again.
	emitted  map[objectPlace]bool
	onLine   map[int]int
	problems []Problem
	// src holds the Source comments of the pass under way.
	src *sourceComments
}

// readStream reads one file. On a broken document it reads the file again
// (reopen) document by document, keeping what the first pass emitted.
func (r *Reader) readStream(name string, in io.Reader, reopen func() (io.ReadCloser, error), fn func(Doc) error) error {
	r.Files++
	st := &fileState{emitted: map[objectPlace]bool{}, onLine: map[int]int{}, src: &sourceComments{}}
	emit := func(d Doc) error {
		at := objectPlace{d.Line, st.onLine[d.Line]}
		st.onLine[d.Line]++
		if st.emitted[at] {
			return nil
		}
		if d.Template == "" {
			d.Template = st.src.at(d.Line)
		}
		st.emitted[at] = true
		st.objects++
		r.Objects++
		if err := fn(d); err != nil {
			return fatal{err}
		}
		return nil
	}
	br := bufio.NewReaderSize(in, 64<<10)
	first, ferr := firstByte(br)
	if ferr == io.EOF {
		r.Skipped = append(r.Skipped, Skip{File: name, Reason: SkipEmpty})
		return nil
	}
	isJSON := ferr == nil && (first == '{' || first == '[')
	var rd io.Reader = br
	if !isJSON {
		rd = io.TeeReader(br, st.src) // Helm's "# Source:" comments are YAML's
	}
	err := Read(name, rd, r.Want, emit)
	if err != nil {
		var f fatal
		if errors.As(err, &f) {
			return f.err
		}
		var me *Error
		if !errors.As(err, &me) {
			me = &Error{File: name, Msg: err.Error()}
		}
		if isJSON && !errors.As(err, new(fromYAML)) {
			st.problems = append(st.problems, problemOf(me, nil, "the rest of the file was not read"))
		} else if err := r.reread(name, me, reopen, st, emit); err != nil {
			return err
		}
	}
	// A file none of whose documents is an object (values.yaml, a config
	// file, package.json) is not a manifest: skipped, not a problem.
	if st.objects == 0 && len(st.problems) > 0 {
		all := true
		for _, p := range st.problems {
			all = all && notObject(p.Message)
		}
		if all {
			r.Skipped = append(r.Skipped, Skip{File: name, Reason: SkipNotKubernetes})
			return nil
		}
	}
	if st.objects == 0 && len(st.problems) == 0 {
		r.Skipped = append(r.Skipped, Skip{File: name, Reason: SkipEmpty})
		return nil
	}
	for _, p := range st.problems {
		r.Problem(p)
	}
	return nil
}

// objectPlace is where an object starts: its line, and how many objects
// started on that line before it.
type objectPlace struct{ line, rank int }

// sourceComments watches the lines of a file go by for Helm's "# Source:
// TEMPLATE" comments, so that each object can name the template that
// produced it (the comment stands in the object's document, before it).
type sourceComments struct {
	mu      sync.Mutex
	line    int    // lines seen so far
	partial []byte // the start of a line not ended yet (only when it may matter)
	inLine  bool   // in the middle of a line that does not matter
	marks   []sourceMark
}

type sourceMark struct {
	line     int
	template string // "" for a document separator
}

func (s *sourceComments) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !s.inLine && (len(s.partial) > 0 || (len(chunk) > 0 && (chunk[0] == '#' || chunk[0] == '-')) || len(chunk) == 0) {
			if len(s.partial) < 4096 {
				s.partial = append(s.partial, chunk...)
			}
		} else {
			s.inLine = true
		}
		if i < 0 {
			break
		}
		s.line++
		s.mark(s.partial)
		s.partial, s.inLine = s.partial[:0], false
		p = p[i+1:]
	}
	return n, nil
}

func (s *sourceComments) mark(l []byte) {
	l = bytes.TrimRight(l, "\r")
	switch {
	case bytes.HasPrefix(l, []byte("# Source: ")):
		s.marks = append(s.marks, sourceMark{s.line, string(bytes.TrimSpace(l[len("# Source: "):]))})
	case bytes.Equal(l, []byte("---")) || bytes.HasPrefix(l, []byte("--- ")):
		s.marks = append(s.marks, sourceMark{s.line, ""})
	}
}

// at returns the template of the object that starts on line: the last
// Source comment before it in its document.
func (s *sourceComments) at(line int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := sort.Search(len(s.marks), func(i int) bool { return s.marks[i].line >= line })
	if i == 0 {
		return ""
	}
	return s.marks[i-1].template
}

// reread reads the file again document by document: every document but the
// broken ones is read (those the first pass emitted are passed over).
func (r *Reader) reread(name string, first *Error, reopen func() (io.ReadCloser, error), st *fileState, emit func(Doc) error) error {
	rc, err := reopen()
	if err != nil {
		st.problems = append(st.problems, problemOf(first, nil, "the rest of the file was not read"))
		return nil
	}
	defer rc.Close()
	st.src = &sourceComments{}
	clear(st.onLine)
	var found []Problem
	ferr := splitDocs(io.TeeReader(rc, st.src), func(start int, text []byte) error {
		if len(text) > maxReread {
			found = append(found, Problem{File: name, Line: start, Level: LevelError, Message: "document too large to read on after an earlier error; fix the error above"})
			return nil
		}
		off := start - 1
		err := Read(name, bytes.NewReader(text), r.Want, func(d Doc) error {
			d.Line += off
			return emit(d)
		})
		if err == nil {
			return nil
		}
		var f fatal
		if errors.As(err, &f) {
			return err
		}
		var me *Error
		if !errors.As(err, &me) {
			me = &Error{File: name, Msg: err.Error()}
		}
		me.Line += off
		if me.Line <= off {
			me.Line = start
		}
		found = append(found, problemOf(me, text, ""))
		return nil
	})
	if ferr != nil {
		var f fatal
		if errors.As(ferr, &f) {
			return f.err
		}
	}
	if len(found) == 0 {
		// The error does not show document by document (it spans them).
		found = append(found, problemOf(first, nil, ""))
	}
	st.problems = append(st.problems, found...)
	return nil
}

// splitDocs calls fn with each YAML document of r and the line it starts on.
func splitDocs(r io.Reader, fn func(start int, text []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var doc bytes.Buffer
	start, line := 1, 0
	flush := func(next int) error {
		defer func() { doc.Reset(); start = next }()
		if len(bytes.TrimSpace(doc.Bytes())) == 0 {
			return nil
		}
		return fn(start, doc.Bytes())
	}
	for {
		l, err := br.ReadBytes('\n')
		if len(l) > 0 {
			line++
			t := bytes.TrimRight(l, "\r\n")
			if bytes.Equal(t, []byte("---")) || bytes.HasPrefix(t, []byte("--- ")) || bytes.Equal(t, []byte("...")) {
				if ferr := flush(line + 1); ferr != nil {
					return ferr
				}
				// Keep the document's lines where they are in the file.
			} else {
				if doc.Len() == 0 {
					start = line
				}
				doc.Write(l)
			}
		}
		if err == io.EOF {
			return flush(line + 1)
		}
		if err != nil {
			return err
		}
	}
}

var (
	kindRE = lazyre.New(`(?m)^kind:[ \t]*["']?([A-Za-z0-9]+)`)
	nameRE = lazyre.New(`(?m)^metadata:(?:\s*\n(?:[ \t]+.*\n)*?[ \t]+|[ \t]*\{[^}\n]*?\b)name:[ \t]*["']?([^"'\s#,}]+)`)
	nsRE   = lazyre.New(`(?m)^metadata:(?:\s*\n(?:[ \t]+.*\n)*?[ \t]+|[ \t]*\{[^}\n]*?\b)namespace:[ \t]*["']?([^"'\s#,}]+)`)
	// goTemplateRE finds Go template actions ({{ .Values.x }}, {{- if }}).
	goTemplateRE = lazyre.New(`\{\{.*?\}\}`)
	// PlaceholderRE finds the __NAME__ placeholders that addon templates
	// (Kubernetes' own CoreDNS addon, for one) leave for sed.
	PlaceholderRE = lazyre.New(`__[A-Z0-9]+(?:_{1,2}[A-Z0-9]+)*__`)
)

// TemplateText returns the first unrendered template text in b: a Go
// template action or a __PLACEHOLDER__.
func TemplateText(b []byte) (string, bool) {
	if m := goTemplateRE().Find(b); m != nil {
		return string(m), true
	}
	if m := PlaceholderRE().Find(b); m != nil {
		return string(m), false
	}
	return "", false
}

// problemOf turns a read error into a problem, naming the object when the
// document's text shows it and saying "render first" for templates.
func problemOf(e *Error, text []byte, extra string) Problem {
	p := Problem{File: e.File, Line: e.Line, Level: LevelError, Message: e.Msg}
	if text != nil {
		if m := kindRE().FindSubmatch(text); m != nil {
			p.Kind = string(m[1])
		}
		if m := nameRE().FindSubmatch(text); m != nil {
			p.Name = string(m[1])
		}
		if m := nsRE().FindSubmatch(text); m != nil {
			p.Namespace = string(m[1])
		}
		if t, goTmpl := TemplateText(text); t != "" {
			if goTmpl {
				p.Message = fmt.Sprintf("unrendered Go template `%s` (%s): render the template first (helm template, or --chart DIR for a chart)", t, e.Msg)
			} else {
				p.Message = fmt.Sprintf("unrendered template placeholder `%s` (%s): render the template first", t, e.Msg)
			}
		}
	}
	if extra != "" {
		p.Message += "; " + extra
	}
	return p
}

// notObject reports whether msg says a document is not a Kubernetes object
// at all (rather than a broken one).
func notObject(msg string) bool {
	return strings.HasPrefix(msg, "object has no kind") ||
		strings.HasPrefix(msg, "expected an object") || strings.HasPrefix(msg, "expected a JSON object") ||
		strings.HasPrefix(msg, "list item must be an object")
}

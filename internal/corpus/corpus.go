// Package corpus loads and validates the case files and the vocabulary, and
// writes cases back as YAML. Every problem it finds carries its file and line.
package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/decodeall"
	"github.com/incidentlib/incidentlib/internal/lazyre"
)

// Corpus is a loaded, validated set of cases and their vocabulary.
type Corpus struct {
	Vocab *incidentlib.Vocab
	Cases []*incidentlib.Case // sorted by id
	byID  map[string]*incidentlib.Case
}

// Case returns the case id, or nil.
func (c *Corpus) Case(id string) *incidentlib.Case { return c.byID[id] }

// NewCorpus indexes cases (sorted by id, by number) under vocab.
func NewCorpus(v *incidentlib.Vocab, cases []*incidentlib.Case) *Corpus {
	slices.SortFunc(cases, func(a, b *incidentlib.Case) int { return incidentlib.CompareIDs(a.ID, b.ID) })
	c := &Corpus{Vocab: v, Cases: cases, byID: map[string]*incidentlib.Case{}}
	for _, k := range cases {
		c.byID[k.ID] = k
	}
	return c
}

// Result is what loading a corpus found: the valid cases and every problem.
type Result struct {
	Corpus   *Corpus
	Problems Problems
	Files    int // case files read
}

// vocabFile is the shape of vocab.yaml.
type vocabFile struct {
	Domain       []incidentlib.Term `yaml:"domain" il:"required"`
	RootCause    []incidentlib.Term `yaml:"root_cause" il:"required"`
	Symptoms     []incidentlib.Term `yaml:"symptoms" il:"required"`
	Components   []incidentlib.Term `yaml:"components" il:"required"`
	Contributing []incidentlib.Term `yaml:"contributing" il:"required"`
	Severity     []incidentlib.Term `yaml:"severity" il:"required"`
	SourceKind   []incidentlib.Term `yaml:"source_kind" il:"required"`
}

var termID = lazyre.New(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ParseVocab reads vocab.yaml.
func ParseVocab(file string, data []byte) (*incidentlib.Vocab, Problems) {
	var vf vocabFile
	pos, probs := decodeFile(file, data, &vf)
	if len(probs) > 0 && pos == nil {
		return nil, probs
	}
	lists := map[string][]incidentlib.Term{
		incidentlib.VocabDomain: vf.Domain, incidentlib.VocabRootCause: vf.RootCause,
		incidentlib.VocabSymptoms: vf.Symptoms, incidentlib.VocabComponents: vf.Components,
		incidentlib.VocabContributing: vf.Contributing, incidentlib.VocabSeverity: vf.Severity,
		incidentlib.VocabSourceKind: vf.SourceKind,
	}
	for _, name := range incidentlib.VocabNames {
		seen := map[string]bool{}
		for i, t := range lists[name] {
			p := fmt.Sprintf("%s[%d]", name, i)
			if !termID().MatchString(t.ID) {
				probs = append(probs, Problem{file, pos.line(p + ".id"), fmt.Sprintf("term id %q is not valid; use lower-case letters, digits and hyphens", t.ID)})
			}
			if seen[t.ID] {
				probs = append(probs, Problem{file, pos.line(p + ".id"), fmt.Sprintf("term %q appears twice in %s", t.ID, name)})
			}
			seen[t.ID] = true
			probs = append(probs, checkTexts(file, pos, p, reflect.ValueOf(t))...)
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return incidentlib.NewVocab(lists), nil
}

// checkTexts finds every Text inside v and reports an empty language.
func checkTexts(file string, pos positions, p string, v reflect.Value) []Problem {
	var probs []Problem
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(incidentlib.Text{}) {
			if p != "" && !pos.usable(p) {
				return nil // missing or malformed: already reported
			}
			t := v.Interface().(incidentlib.Text)
			if strings.TrimSpace(t.EN) == "" && pos[join(p, "en")] >= 0 {
				probs = append(probs, Problem{file, pos.line(p), fmt.Sprintf("%s has no English text; every text needs both en and ko", p)})
			}
			if strings.TrimSpace(t.KO) == "" && pos[join(p, "ko")] >= 0 {
				probs = append(probs, Problem{file, pos.line(p), fmt.Sprintf("%s has no Korean text; every text needs both en and ko", p)})
			}
			return probs
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			name := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if name == "" || name == "-" {
				continue
			}
			probs = append(probs, checkTexts(file, pos, join(p, name), v.Field(i))...)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			probs = append(probs, checkTexts(file, pos, fmt.Sprintf("%s[%d]", p, i), v.Index(i))...)
		}
	}
	return probs
}

var (
	slugRE  = lazyre.New(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	dateFmt = "2006-01-02"
)

// ParseCase decodes one case file and checks everything that can be checked
// without the other cases. The returned positions serve later checks.
func ParseCase(file string, data []byte, v *incidentlib.Vocab) (*incidentlib.Case, positions, Problems) {
	var c incidentlib.Case
	pos, probs := decodeFile(file, data, &c)
	if pos == nil {
		return nil, nil, probs
	}
	probs = append(probs, checkCase(file, pos, &c, v)...)
	c.Normalize()
	return &c, pos, probs
}

func checkCase(file string, pos positions, c *incidentlib.Case, v *incidentlib.Vocab) []Problem {
	k := &caseCheck{file: file, pos: pos, c: c, v: v}
	k.fields()
	k.terms()
	k.sources()
	k.links()
	probs := k.probs
	probs = append(probs, checkTexts(file, pos, "", reflect.ValueOf(*c))...)
	probs = append(probs, checkProse(file, pos, c)...)
	probs = append(probs, checkImpact(file, pos, c)...)
	probs = append(probs, checkEditorial(file, pos, c)...)
	return probs
}

// caseCheck is one run of checkCase: the case, where its fields are and
// the problems found so far.
type caseCheck struct {
	file  string
	pos   positions
	c     *incidentlib.Case
	v     *incidentlib.Vocab
	probs []Problem
}

// add reports a problem at the line of the field at path p.
func (k *caseCheck) add(p, format string, args ...any) {
	k.probs = append(k.probs, Problem{k.file, k.pos.line(p), fmt.Sprintf(format, args...)})
}

// fields checks the case's single values: id, org_slug, dates, review and
// timeline durations.
func (k *caseCheck) fields() {
	c, add := k.c, k.add
	if c.ID != "" && !incidentlib.ValidID(c.ID) {
		add("id", "id %q is not valid; expected IL- and four digits (IL-0049), or more digits without a leading zero (IL-12345)", c.ID)
	}
	if base := strings.TrimSuffix(path.Base(k.file), ".yaml"); c.ID != "" && base != c.ID {
		add("id", "id %q does not match the file name %q; name the file %s.yaml", c.ID, path.Base(k.file), c.ID)
	}
	if c.OrgSlug != "" && !slugRE().MatchString(c.OrgSlug) {
		add("org_slug", "org_slug %q is not valid; use lower-case letters, digits and hyphens", c.OrgSlug)
	}
	if c.Date != "" && !validDate(c.Date) {
		add("date", "date %q is not a valid date; expected YYYY-MM-DD (or YYYY-MM or YYYY when the source gives no day)", c.Date)
	}
	if c.DateKind != "" && c.DateKind != "incident" && c.DateKind != "published" {
		add("date_kind", "date_kind %q is not valid; expected incident or published", c.DateKind)
	}
	if c.UpdatedAt != "" {
		if _, err := time.Parse(time.RFC3339, c.UpdatedAt); err != nil {
			add("updated_at", "updated_at %q is not an RFC 3339 time; expected e.g. 2026-11-30T00:00:00Z", c.UpdatedAt)
		}
	}
	if ra := c.Review.ReviewedAt; ra != nil {
		if _, err := time.Parse(time.RFC3339, *ra); err != nil {
			add("review.reviewed_at", "review.reviewed_at %q is not an RFC 3339 time; expected e.g. 2026-11-30T00:00:00Z, or null", *ra)
		}
	}
	if (c.Review.ReviewedAt == nil) != (c.Review.ReviewedBy == nil) {
		add("review", "review.reviewed_at and review.reviewed_by go together; set both or leave both null")
	}
	for _, d := range []struct {
		p string
		v *string
	}{{"timeline.detected_after", c.Timeline.DetectedAfter}, {"timeline.resolved_after", c.Timeline.ResolvedAfter}} {
		if d.v == nil {
			continue
		}
		if dur, err := time.ParseDuration(*d.v); err != nil || dur < 0 {
			add(d.p, "%s %q is not a duration; expected a Go duration such as 4m or 2h30m, or null", d.p, *d.v)
		}
	}
}

// terms checks the fields that list vocabulary terms.
func (k *caseCheck) terms() {
	c := k.c
	k.termList("domain", incidentlib.VocabDomain, c.Domain, 1)
	k.termList("symptoms", incidentlib.VocabSymptoms, c.Symptoms, 1)
	k.termList("components", incidentlib.VocabComponents, c.Components, 1)
	k.termList("contributing", incidentlib.VocabContributing, c.Contributing, 0)
	if c.RootCause != "" {
		k.termList("root_cause", incidentlib.VocabRootCause, []string{c.RootCause}, 1)
	}
	if c.Severity != "" {
		k.termList("severity", incidentlib.VocabSeverity, []string{c.Severity}, 1)
	}
}

// termList checks that the field at p lists at least min terms of the
// vocabulary's list vocab, each once.
func (k *caseCheck) termList(p, vocab string, ids []string, min int) {
	if !k.pos.usable(p) {
		return
	}
	if len(ids) < min {
		k.add(p, "%s is empty; expected at least %d term from vocab.yaml %s", p, min, vocab)
	}
	seen := map[string]bool{}
	for i, id := range ids {
		ip := fmt.Sprintf("%s[%d]", p, i)
		if seen[id] {
			k.add(ip, "%s lists %q twice", p, id)
		}
		seen[id] = true
		if !k.v.Has(vocab, id) {
			k.add(ip, "%s: unknown term %q; expected a term of vocab.yaml %s (%s)", p, id, vocab, strings.Join(k.v.IDs(vocab), ", "))
		}
	}
}

// sources checks the case's sources: at least one, each with a URL, its
// own title and a known kind.
func (k *caseCheck) sources() {
	c, v, add := k.c, k.v, k.add
	if len(c.Sources) == 0 && k.pos.usable("sources") {
		add("sources", "a case needs at least one source: the public write-up it is based on")
	}
	for i, s := range c.Sources {
		p := fmt.Sprintf("sources[%d]", i)
		checkURL(add, p+".url", s.URL)
		if t := strings.TrimSpace(s.Title); strings.EqualFold(t, "unknown") || t == s.URL {
			add(p+".title", "%s.title is %q; give the write-up's own title (its heading, the status-page incident name, the message subject)", p, t)
		}
		if s.Archived != nil {
			checkURL(add, p+".archived", *s.Archived)
		}
		if s.Kind != "" && !v.Has(incidentlib.VocabSourceKind, s.Kind) {
			add(p+".kind", "%s.kind: unknown source kind %q; expected one of %s", p, s.Kind, strings.Join(v.IDs(incidentlib.VocabSourceKind), ", "))
		}
	}
}

// links checks the case's docs URLs and the ids of its related and earlier
// cases.
func (k *caseCheck) links() {
	c, add := k.c, k.add
	for i, d := range c.Docs {
		checkURL(add, fmt.Sprintf("docs[%d]", i), d)
	}
	for i, r := range c.Related {
		if !incidentlib.ValidID(r) {
			add(fmt.Sprintf("related[%d]", i), "related id %q is not valid; expected IL- and four digits", r)
		} else if r == c.ID {
			add(fmt.Sprintf("related[%d]", i), "related lists the case itself (%s); list other cases only", r)
		}
	}
	if r := c.RecurrenceOf; r != nil {
		if !incidentlib.ValidID(*r) {
			add("recurrence_of", "recurrence_of %q is not valid; expected IL- and four digits, or null", *r)
		} else if *r == c.ID {
			add("recurrence_of", "recurrence_of names the case itself (%s); name an earlier case or null", *r)
		}
	}
}

// validDate accepts a full date, or a month or year alone for write-ups
// that give no more.
func validDate(s string) bool {
	for _, layout := range []string{dateFmt, "2006-01", "2006"} {
		if len(s) == len(layout) {
			if _, err := time.Parse(layout, s); err == nil {
				return true
			}
		}
	}
	return false
}

func checkURL(add func(p, format string, args ...any), p, s string) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		add(p, "%s %q is not an absolute http(s) URL; expected e.g. https://example.com/postmortem", p, s)
	}
}

// Load reads vocab.yaml and cases/*.yaml from fsys. A case with any problem
// is left out of the corpus; all problems are returned, sorted by file and line.
func Load(fsys fs.FS, vocabFS fs.FS) (*Result, error) {
	if vocabFS == nil {
		vocabFS = fsys
	}
	vdata, err := fs.ReadFile(vocabFS, "vocab.yaml")
	if err != nil {
		return nil, fmt.Errorf("read vocab.yaml: %w", err)
	}
	vocab, vprobs := ParseVocab("vocab.yaml", vdata)
	if vprobs != nil {
		return &Result{Problems: vprobs}, nil
	}
	entries, err := fs.ReadDir(fsys, "cases")
	if err != nil {
		return nil, fmt.Errorf("read the cases folder: %w", err)
	}
	res := &Result{}
	all := readCases(fsys, entries, vocab, res)
	res.markDuplicateIDs(all)
	good := res.checkAcross(all, existingIDs(entries, all))
	sort.SliceStable(res.Problems, func(i, j int) bool {
		a, b := res.Problems[i], res.Problems[j]
		if a.File != b.File {
			return incidentlib.CompareCaseFiles(a.File, b.File) < 0
		}
		return a.Line < b.Line
	})
	res.Corpus = NewCorpus(vocab, good)
	return res, nil
}

// loaded is a case file Load parsed: its case, where its fields are, and
// whether it has a problem.
type loaded struct {
	c    *incidentlib.Case
	file string
	pos  positions
	bad  bool
}

// readCases parses and checks each case file of entries on its own, counts
// them in res.Files and adds their problems to res.
func readCases(fsys fs.FS, entries []fs.DirEntry, vocab *incidentlib.Vocab, res *Result) []*loaded {
	// Each file is read and parsed on its own, on every processor
	// (decodeall.Stream; a server's start parses the whole corpus before it
	// reads its store); problems and cases come back in the files' order.
	type parsed struct {
		probs []Problem
		l     *loaded
	}
	i := 0
	out, _ := decodeall.Stream(func() (string, bool, error) {
		for ; i < len(entries); i++ {
			if e := entries[i]; !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				i++
				if strings.HasSuffix(e.Name(), ".yaml") {
					res.Files++
				}
				return e.Name(), true, nil
			}
		}
		return "", false, nil
	}, func(name string) (parsed, error) {
		file := "cases/" + name
		if !strings.HasSuffix(name, ".yaml") {
			return parsed{probs: []Problem{{file, 1, "a file in cases/ that is not a case; case files are named IL-NNNN.yaml"}}}, nil
		}
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return parsed{probs: []Problem{{file, 1, "cannot read the file: " + errors.Unwrap(err).Error()}}}, nil
		}
		c, pos, probs := ParseCase(file, data, vocab)
		if c == nil {
			return parsed{probs: probs}, nil
		}
		return parsed{probs, &loaded{c, file, pos, len(probs) > 0}}, nil
	})
	var all []*loaded
	for _, p := range out {
		res.Problems = append(res.Problems, p.probs...)
		if p.l != nil {
			all = append(all, p.l)
		}
	}
	return all
}

// existingIDs returns the ids of every case file, valid or not.
func existingIDs(entries []fs.DirEntry, all []*loaded) map[string]bool {
	exists := map[string]bool{}
	for _, e := range entries {
		if stem := strings.TrimSuffix(e.Name(), ".yaml"); incidentlib.ValidID(stem) {
			exists[stem] = true
		}
	}
	for _, l := range all {
		exists[l.c.ID] = true
	}
	return exists
}

// markDuplicateIDs reports, and marks bad, every case whose id an earlier
// one already uses.
func (res *Result) markDuplicateIDs(all []*loaded) {
	ids := map[string]*loaded{}
	for _, l := range all {
		if l.c.ID == "" {
			continue
		}
		if first, dup := ids[l.c.ID]; dup {
			res.Problems = append(res.Problems, Problem{l.file, l.pos.line("id"), fmt.Sprintf("id %s is already used by %s; every case needs its own id", l.c.ID, first.file)})
			l.bad = true
			continue
		}
		ids[l.c.ID] = l
	}
}

// checkAcross checks what each case shares with the others (its sources)
// and the cases it names (related, recurrence_of) among those that exist,
// and returns the cases without a problem.
func (res *Result) checkAcross(all []*loaded, exists map[string]bool) []*incidentlib.Case {
	var good []*incidentlib.Case
	shared := sharedSources{}
	for _, l := range all {
		shared.add(l.c)
	}
	for _, l := range all {
		if ps := shared.check(l.file, l.pos, l.c); len(ps) > 0 {
			res.Problems, l.bad = append(res.Problems, ps...), true
		}
		for i, r := range l.c.Related {
			if incidentlib.ValidID(r) && r != l.c.ID && !exists[r] {
				p := fmt.Sprintf("related[%d]", i)
				res.Problems = append(res.Problems, Problem{l.file, l.pos.line(p), fmt.Sprintf("related case %s does not exist; list ids of cases in cases/", r)})
				l.bad = true
			}
		}
		if r := l.c.RecurrenceOf; r != nil && incidentlib.ValidID(*r) && *r != l.c.ID && !exists[*r] {
			res.Problems = append(res.Problems, Problem{l.file, l.pos.line("recurrence_of"), fmt.Sprintf("recurrence_of names %s, which does not exist; name a case in cases/ or null", *r)})
			l.bad = true
		}
		if !l.bad {
			good = append(good, l.c)
		}
	}
	return good
}

// LoadEmbedded loads the corpus built into the binary. It fails when the
// embedded corpus has any problem, which the tests prevent.
//
// The embedded files never change while the program runs, so they are
// parsed and checked once; every call after the first decodes the checked
// cases from a JSON copy kept in memory (about a tenth of the cost of
// parsing the YAML and checking it again) and returns cases of its own,
// which the caller may change without touching anyone else's.
func LoadEmbedded() (*Corpus, error) {
	embedded.once.Do(func() {
		res, err := Load(incidentlib.CorpusFS(), nil)
		switch {
		case err != nil:
			embedded.err = err
		case len(res.Problems) > 0:
			embedded.err = fmt.Errorf("the embedded corpus is invalid:\n%w", res.Problems)
		default:
			embedded.first = res.Corpus
			embedded.cases, embedded.err = json.Marshal(res.Corpus.Cases)
		}
	})
	if embedded.err != nil {
		return nil, embedded.err
	}
	if c := embedded.first; c != nil && embedded.handedOut.CompareAndSwap(false, true) {
		return c, nil
	}
	vdata, err := fs.ReadFile(incidentlib.CorpusFS(), "vocab.yaml")
	if err != nil {
		return nil, fmt.Errorf("read vocab.yaml: %w", err)
	}
	vocab, probs := ParseVocab("vocab.yaml", vdata)
	if probs != nil {
		return nil, fmt.Errorf("the embedded corpus is invalid:\n%w", probs)
	}
	var cases []*incidentlib.Case
	if err := json.Unmarshal(embedded.cases, &cases); err != nil {
		return nil, fmt.Errorf("decode the embedded cases: %w", err)
	}
	return NewCorpus(vocab, cases), nil
}

// embedded holds the embedded corpus as checked by the first LoadEmbedded:
// the corpus itself, handed to the first caller, and its cases as JSON.
var embedded struct {
	once      sync.Once
	err       error
	first     *Corpus
	handedOut atomic.Bool
	cases     []byte
}

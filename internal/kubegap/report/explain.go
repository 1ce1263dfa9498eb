package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"

	"github.com/incidentlib/incidentlib/internal/locale"
)

// CaseLookup returns a case of the corpus, or nil.
type CaseLookup func(id string) *incidentlib.Case

// Explanation is `kubegap explain` as data (the MCP tool returns it).
type Explanation struct {
	ID          string        `json:"id"`
	Severity    string        `json:"severity"`
	Title       string        `json:"title"`
	LooksAt     string        `json:"looks_at"`
	Why         []CaseSummary `json:"why"`
	Remediation string        `json:"remediation"`
	CannotSee   string        `json:"cannot_see"`
	Kinds       []string      `json:"kinds"`
}

// CaseSummary is a cited case in an explanation.
type CaseSummary struct {
	ID      string `json:"id"`
	Org     string `json:"org"`
	Date    string `json:"date"`
	Title   string `json:"title"`
	Summary string `json:"summary"`
	// Quote is the sentence of the case that states the mechanism, in the
	// explanation's language (English where the case's Korean has none).
	Quote string `json:"quote"`
}

// Explain builds the explanation of c in lang, with the cited cases'
// summaries taken from the corpus.
func Explain(c *checks.Check, cases CaseLookup, lang string) Explanation {
	e := Explanation{
		ID: c.ID, Severity: c.Severity.String(), Title: c.Title.In(lang),
		LooksAt: c.LooksAt.In(lang), Remediation: c.Remediation.In(lang), CannotSee: c.CannotSee.In(lang),
		Kinds: kindStrings(c.Reads()), Why: []CaseSummary{},
	}
	for _, ct := range c.Citations {
		id, quote := ct.Case, ct.QuoteIn(lang)
		k := cases(id)
		if k == nil {
			e.Why = append(e.Why, CaseSummary{ID: id, Summary: "(not in this corpus)", Quote: quote})
			continue
		}
		e.Why = append(e.Why, CaseSummary{ID: id, Org: k.Org, Date: k.Date, Title: k.Title.In(lang), Summary: strings.TrimSpace(k.Summary.In(lang)), Quote: quote})
	}
	return e
}

// WriteExplain renders an explanation as text (or JSON).
func WriteExplain(w io.Writer, e Explanation, format, lang string) error {
	if format == "json" {
		return writeJSON(w, e)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n%s\n\n", e.ID, e.Severity, e.Title)
	fmt.Fprintf(&b, "%s\n%s\n%s\n\n", locale.T(lang, "explain.looks_at"), wrap(e.LooksAt), locale.T(lang, "explain.reads")+strings.Join(e.Kinds, ", "))
	fmt.Fprintf(&b, "%s\n", locale.T(lang, "explain.why"))
	if len(e.Why) == 0 {
		fmt.Fprintf(&b, "\n%s\n", explainWord(lang, "no_case"))
	}
	for _, c := range e.Why {
		fmt.Fprintf(&b, "\n%s · %s · %s\n%s\n\n%s\n%s\n\n%s\n", c.ID, c.Org, c.Date, c.Title, explainWord(lang, "evidence"), quoteBlock(c.Quote), wrap(c.Summary))
	}
	fmt.Fprintf(&b, "\n%s\n%s\n\n", locale.T(lang, "explain.fix"), wrap(e.Remediation))
	fmt.Fprintf(&b, "%s\n%s\n", locale.T(lang, "explain.cannot_see"), wrap(e.CannotSee))
	_, err := io.WriteString(w, b.String())
	return err
}

// explainWords are the words explain adds for the evidence of each case.
var explainWords = map[string]map[string]string{
	"en": {"evidence": "What the case says:", "no_case": "No case in the corpus states this mechanism yet."},
	"ko": {"evidence": "사례의 해당 문장:", "no_case": "이 메커니즘을 밝힌 사례가 아직 코퍼스에 없습니다."},
}

func explainWord(lang, key string) string {
	if w, ok := explainWords[lang]; ok {
		return w[key]
	}
	return explainWords["en"][key]
}

// quoteBlock sets a quote off as "> " lines, wrapped like the prose.
func quoteBlock(q string) string {
	lines := strings.Split(wrap("\u201c"+strings.Join(strings.Fields(q), " ")+"\u201d"), "\n")
	for i, l := range lines {
		lines[i] = "> " + l
	}
	return strings.Join(lines, "\n")
}

// wrap re-flows prose to about 88 columns, keeping paragraph breaks.
func wrap(s string) string {
	var out []string
	for _, para := range strings.Split(strings.TrimSpace(s), "\n\n") {
		words := strings.Fields(para)
		var line strings.Builder
		var lines []string
		for _, w := range words {
			if line.Len() > 0 && len([]rune(line.String()))+1+len([]rune(w)) > 88 {
				lines = append(lines, line.String())
				line.Reset()
			}
			if line.Len() > 0 {
				line.WriteByte(' ')
			}
			line.WriteString(w)
		}
		if line.Len() > 0 {
			lines = append(lines, line.String())
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	return strings.Join(out, "\n\n")
}

// WriteRBAC prints the minimal read-only roles for cs: a ClusterRole with
// get/list on the cluster-wide kinds, and a Role in kube-system for the
// kinds read only there. It never grants Secrets.
func WriteRBAC(w io.Writer, cs []*checks.Check, name string) error {
	byGroup := map[string]map[string]bool{}
	var nsOnly []inventory.KindInfo
	add := func(info inventory.KindInfo) {
		if byGroup[info.Group] == nil {
			byGroup[info.Group] = map[string]bool{}
		}
		byGroup[info.Group][info.Resource] = true
	}
	kinds := checks.Kinds(cs)
	kinds = append(kinds, inventory.Pod) // counted for estimates (metadata only)
	seen := map[inventory.Kind]bool{}
	for _, k := range kinds {
		if seen[k] {
			continue
		}
		seen[k] = true
		info := inventory.Info(k)
		if info.Namespace != "" {
			nsOnly = append(nsOnly, info)
			continue
		}
		add(info)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Read-only access for kubegap's %d enabled checks. kubegap only gets and lists;\n", len(cs))
	b.WriteString("# it asks SelfSubjectAccessReview first, which every authenticated user may create.\n")
	fmt.Fprintf(&b, "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: %s\nrules:\n", name)
	writeRules(&b, byGroup)
	if len(nsOnly) > 0 {
		ns := map[string]map[string]map[string]bool{}
		for _, info := range nsOnly {
			if ns[info.Namespace] == nil {
				ns[info.Namespace] = map[string]map[string]bool{}
			}
			if ns[info.Namespace][info.Group] == nil {
				ns[info.Namespace][info.Group] = map[string]bool{}
			}
			ns[info.Namespace][info.Group][info.Resource] = true
		}
		names := make([]string, 0, len(ns))
		for n := range ns {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, "---\n# ConfigMaps are read in %s only (the Corefile).\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: %s\n  namespace: %s\nrules:\n", n, name, n)
			writeRules(&b, ns[n])
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeRules(b *strings.Builder, byGroup map[string]map[string]bool) {
	groups := make([]string, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		var res []string
		for r := range byGroup[g] {
			res = append(res, r)
		}
		sort.Strings(res)
		fmt.Fprintf(b, "- apiGroups: [%q]\n  resources: [%s]\n  verbs: [\"get\", \"list\"]\n", g, quoteList(res))
	}
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

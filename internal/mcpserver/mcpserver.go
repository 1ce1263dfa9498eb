// Package mcpserver exposes the library to AI agents as MCP tools, served
// over Streamable HTTP without sessions so that any replica can answer any
// call. Every tool is read-only and sized for an agent's context.
package mcpserver

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/library"
	"github.com/incidentlib/incidentlib/internal/search"
)

// Server holds the MCP server over an index.
type Server struct {
	ix      library.Reader
	baseURL string
	srv     *mcp.Server
}

// New builds the MCP server over ix and registers its tools. MCP has no
// credentials, so ix must be the public Reader (Library.Public): every
// tool and resource then sees the public cases only, and none filters.
func New(ix library.Reader, baseURL, version string) *Server {
	if ix.Private() {
		panic("mcpserver.New: MCP answers without credentials; pass Library.Public(), not a Reader that shows private cases")
	}
	s := &Server{ix: ix, baseURL: strings.TrimRight(baseURL, "/")}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "incidentlib", Title: "incidentlib: infrastructure incident library", Version: version}, &mcp.ServerOptions{
		Instructions: "A library of public infrastructure incident write-ups (Kubernetes, cloud networking, DNS, control planes, deploys), each a structured case IL-NNNN in Korean and English. " +
			"Use search_incidents with symptoms, error messages or log lines to find past incidents like the one at hand; get_incident for a whole case; similar_incidents to widen from one case; get_topic and vocab to browse by component, root cause or symptom. All tools are read-only. " +
			"Cases are also resources (incident://IL-0049, topic://coredns), and the prompt investigate_error walks the tools for a pasted error.",
		// Stateless: no session lives long enough to hear of a list change,
		// so none is promised.
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
		},
	})
	s.tools().Install(s.srv)
	s.addResources()
	return s
}

// Handler serves the tools over Streamable HTTP, stateless.
func (s *Server) Handler(jsonResponse bool) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        jsonResponse,
		MaxRequestBodyBytes: 1 << 20,
	})
}

// Filters narrow searches and lists. Values of one filter are ORed (a case
// matches with any of them); different filters are ANDed.
type Filters struct {
	Domain        []string `json:"domain,omitempty" jsonschema:"domain term ids, any of them, e.g. kubernetes, aws, dns"`
	Symptoms      []string `json:"symptoms,omitempty" jsonschema:"symptom term ids, any of them, e.g. dns-resolution-failures"`
	RootCause     []string `json:"root_cause,omitempty" jsonschema:"root cause term ids, any of them (a case has one), e.g. config-change, capacity-limit"`
	Components    []string `json:"components,omitempty" jsonschema:"component term ids, any of them, e.g. coredns, kube-apiserver, cilium"`
	ComponentsAll []string `json:"components_all,omitempty" jsonschema:"component term ids a case must all carry"`
	Contributing  []string `json:"contributing,omitempty" jsonschema:"contributing factor term ids, any of them, e.g. retry-storm"`
	Severity      []string `json:"severity,omitempty" jsonschema:"severity term ids, any of them: critical, major, minor, unknown"`
	Org           []string `json:"org,omitempty" jsonschema:"organisations by slug or name, case-insensitive, any of them, e.g. datadog or Datadog"`
	YearFrom      int      `json:"year_from,omitempty" jsonschema:"first year to include"`
	YearTo        int      `json:"year_to,omitempty" jsonschema:"last year to include"`
}

// add puts the filters into v under the parameter table's names.
func (f *Filters) add(v args) {
	if f == nil {
		return
	}
	for name, vals := range map[string][]string{
		incidentlib.VocabDomain: f.Domain, incidentlib.VocabSymptoms: f.Symptoms, incidentlib.VocabRootCause: f.RootCause,
		incidentlib.VocabComponents: f.Components, "components_all": f.ComponentsAll, incidentlib.VocabContributing: f.Contributing,
		incidentlib.VocabSeverity: f.Severity, search.OrgFilter: f.Org,
	} {
		if len(vals) > 0 {
			v[name] = vals
		}
	}
	v.int("year_from", f.YearFrom)
	v.int("year_to", f.YearTo)
}

// args are a tool's arguments as the parameter table reads them: every
// tool's lang, limit, offset, sort and filters go through search.Parse,
// the parser of the API, the pages and the command line, so they mean
// the same, with the same bounds and errors.
type args url.Values

func (v args) str(name, s string) {
	if s != "" {
		v[name] = []string{s}
	}
}

// int sets a number; 0 is an argument left out (the schemas' minimums
// refuse a 0 that was sent).
func (v args) int(name string, n int) {
	if n != 0 {
		v[name] = []string{strconv.Itoa(n)}
	}
}

// parse reads the arguments for route; the first problem is the error.
func (v args) parse(route search.Route) (search.Parsed, error) {
	p, probs := search.Parse(url.Values(v), search.FaceMCP, route, 0)
	if len(probs) > 0 {
		return p, incidentlib.Errorf(incidentlib.ErrInvalid, "%s", probs[0].Error())
	}
	return p, nil
}

// Item is one case in a list.
type Item struct {
	ID        string `json:"id"`
	Org       string `json:"org"`
	Date      string `json:"date"`
	Title     string `json:"title"`
	RootCause string `json:"root_cause"`
	Snippet   string `json:"snippet,omitempty" jsonschema:"the matching passage; matched words between ** marks"`
	URL       string `json:"url"`
}

// ListOutput is a page of cases.
type ListOutput struct {
	Total      int      `json:"total"`
	Items      []Item   `json:"items"`
	NextOffset int      `json:"next_offset,omitempty" jsonschema:"pass as offset to get the next page; absent on the last page"`
	Notes      []string `json:"notes,omitempty"`
}

var markRE = regexp.MustCompile(`</?mark>`)

// plain turns an HTML snippet into text an agent reads, matches in **.
func plain(s string) string { return html.UnescapeString(markRE.ReplaceAllString(s, "**")) }

func (s *Server) page(q search.Query) (ListOutput, error) {
	res, err := s.ix.Search(q)
	if err != nil {
		return ListOutput{}, err
	}
	out := ListOutput{Total: res.Total, Items: []Item{}, Notes: res.Notes}
	for _, h := range res.Hits {
		out.Items = append(out.Items, Item{
			ID: h.Case.ID, Org: h.Case.Org, Date: h.Case.Date, Title: h.Case.Title.In(q.Lang),
			RootCause: h.Case.RootCause, Snippet: plain(h.Snippet), URL: incidentlib.CaseURL(s.baseURL, h.Case.ID),
		})
	}
	if next := res.Offset + len(res.Hits); next < res.Total && len(res.Hits) > 0 {
		out.NextOffset = next
	}
	return out, nil
}

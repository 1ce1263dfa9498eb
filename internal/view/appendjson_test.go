package view

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
)

func encodingJSON(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// TestAppendJSONMatchesEncodingJSON: the hand-written encoder writes every
// search answer of the judged queries (in both languages, with and without
// terms, past the last page) exactly as encoding/json does.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := search.New(c.Vocab, c.Cases)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	data, err := os.ReadFile("../search/testdata/relevance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var judged []struct {
		Q string `yaml:"q"`
	}
	if err := yaml.Unmarshal(data, &judged); err != nil {
		t.Fatal(err)
	}
	queries := []search.Query{{}, {Offset: 100000, Limit: 5}, {Text: "printer toner office party"}}
	for _, j := range judged {
		queries = append(queries, search.Query{Text: j.Q}, search.Query{Text: j.Q, Lang: "en", Limit: 5})
	}
	items := 0
	for _, q := range queries {
		if q.Limit == 0 {
			q.Limit = 20
		}
		res, err := ix.Public().Search(q)
		if err != nil {
			t.Fatal(q.Text, err)
		}
		r := NewSearchResponse(res, "http://example.test/")
		items += len(r.Items)
		if got, want := r.AppendJSON(nil), encodingJSON(t, r); !bytes.Equal(got, want) {
			t.Fatalf("%q: AppendJSON differs from encoding/json\n got %s\nwant %s", q.Text, got, want)
		}
	}
	if items < 1000 {
		t.Fatalf("only %d items compared", items)
	}
}

// TestAppendJSONOddValues: strings with every escape, invalid UTF-8, line
// separators, and floats at the format boundaries; nil and empty slices.
func TestAppendJSONOddValues(t *testing.T) {
	odd := []string{"", "plain", `quo"te \back\slash`, "\x00\x01\x1f\x7f", "\b\f\n\r\t", "<html>&amp;", "\u2028\u2029", "bad \xff\xfe utf8 \xe2\x82", "한국어 ✓ 😀", "\u00e9\u0301", "\xed\x9f\xbf 힣 \xed\xa0\x80 \xe0\x80\x80 \xe1\x80", "끝\xea\xb0"}
	floats := []float64{0, 1, -1, 0.5, 1e-7, 1e-6, 123456789, 1e20, 1e21, 1.5e300, 3.141592653589793, -2.5e-10, math.Copysign(0, -1)}
	for i, s := range odd {
		r := SearchResponse{
			Items:  []SearchItem{{ID: s, Org: s, Date: s, Title: incidentlib.Text{EN: s, KO: s}, RootCause: s, Score: floats[i%len(floats)], Match: floats[(i+3)%len(floats)], Snippet: s, URL: s}},
			Facets: map[string][]search.FacetCount{s: {{Term: s, Label: s, Count: i}}, "b": nil, "a": {}},
			Notes:  []string{s},
		}
		if got, want := r.AppendJSON(nil), encodingJSON(t, r); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s want %s", s, got, want)
		}
	}
	for _, f := range floats {
		r := SearchResponse{Items: []SearchItem{{Score: f}}}
		if got, want := r.AppendJSON(nil), encodingJSON(t, r); !bytes.Equal(got, want) {
			t.Errorf("%v: got %s want %s", f, got, want)
		}
	}
	if got, want := (SearchResponse{}).AppendJSON(nil), encodingJSON(t, SearchResponse{}); !bytes.Equal(got, want) {
		t.Errorf("zero value: got %s want %s", got, want)
	}
}

// FuzzAppendString holds the string encoder to encoding/json's on any
// input.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff", "\u2028", "한\x00글"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := encodingJSON(t, s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	})
}

package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/incidentlib/incidentlib/internal/api"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
)

// keyOrder lists the keys of every object in body, in the order written,
// depth first, leaving out en and ko (the languages of a text); langs
// counts the en and ko keys.
func keyOrder(t *testing.T, body []byte) (keys []string, langs map[string]int) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	langs = map[string]int{}
	// Each open container; for an object, whether its next token is a key.
	type frame struct{ object, wantKey bool }
	var stack []frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return keys, langs
		}
		if err != nil {
			t.Fatal(err)
		}
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				valueDone()
				continue
			}
			k := tok.(string)
			stack[n-1].wantKey = false
			if k == "en" || k == "ko" {
				langs[k]++
			} else {
				keys = append(keys, k)
			}
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{object: true, wantKey: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim(']'), json.Delim('}'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

// TestOneLanguageKeepsKeyOrder: an answer in one language (?lang=) has the
// keys of the answer in both, in the same order, with only the other
// language's texts left out.
func TestOneLanguageKeepsKeyOrder(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := search.New(c.Vocab, c.Cases)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	api.New(ix.Public(), ix.All(), nil, "http://incidentlib.test", "", slog.New(slog.DiscardHandler)).Install(mux)
	get := func(path string) []byte {
		t.Helper()
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 {
			t.Fatalf("GET %s = %d: %.300s", path, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	for _, path := range []string{"/api/cases/IL-0049", "/api/cases/IL-0049/similar", "/api/topics", "/api/topics/coredns", "/api/vocab", "/api/stats"} {
		both, bothLangs := keyOrder(t, get(path))
		if bothLangs["en"] == 0 || bothLangs["en"] != bothLangs["ko"] {
			t.Fatalf("GET %s: texts in both languages %v", path, bothLangs)
		}
		for _, lang := range []string{"en", "ko"} {
			one, langs := keyOrder(t, get(path+"?lang="+lang))
			if !slices.Equal(both, one) {
				i := 0
				for i < min(len(both), len(one)) && both[i] == one[i] {
					i++
				}
				t.Errorf("GET %s?lang=%s: the keys differ from the answer in both languages from key %d: %q, want %q", path, lang, i, one[i:min(i+6, len(one))], both[i:min(i+6, len(both))])
			}
			other := map[string]string{"en": "ko", "ko": "en"}[lang]
			if langs[other] != 0 || langs[lang] == 0 {
				t.Errorf("GET %s?lang=%s: %v texts by language", path, lang, langs)
			}
		}
	}
}

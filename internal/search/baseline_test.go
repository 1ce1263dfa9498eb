package search_test

import (
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	_ "modernc.org/sqlite"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
)

// fts5Recall measures the plain baseline: SQLite FTS5 with its default
// (unicode61) tokenizer over the same fields, the query's words OR-ed,
// ranked by bm25 with the same field weights.
func fts5Recall(t testing.TB, set []judged) float64 {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	// One column a search field, filled from the sections of the table as
	// the index fills its fields.
	var cols, marks, weights []string
	for _, f := range incidentlib.SearchFields {
		cols = append(cols, `"`+f.Name+`"`)
		marks = append(marks, "?")
		weights = append(weights, strconv.FormatFloat(float64(f.Weight), 'g', -1, 32))
	}
	if _, err := db.Exec(`CREATE VIRTUAL TABLE cases USING fts5(id UNINDEXED, ` + strings.Join(cols, ", ") + `)`); err != nil {
		t.Fatal(err)
	}
	// One transaction for the whole corpus: FTS5 writes its pending terms
	// out as one segment at the commit, where a commit per case wrote a
	// segment each and merged them as they came. The index it answers from
	// holds the same rows either way, so its ranking is the same.
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	insert, err := tx.Prepare(`INSERT INTO cases VALUES (?, ` + strings.Join(marks, ", ") + `)`)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range c.Cases {
		texts := make([][]string, len(incidentlib.SearchFields))
		for i := range incidentlib.Sections {
			s := &incidentlib.Sections[i]
			f := slices.IndexFunc(incidentlib.SearchFields, func(f incidentlib.SearchField) bool { return f.Name == s.Search })
			if f < 0 {
				continue
			}
			if s.Kind == incidentlib.Terms {
				for _, id := range s.Terms(k) {
					t := c.Vocab.Term(s.Vocab, id)
					texts[f] = append(texts[f], id, t.Label.EN, t.Label.KO)
				}
				continue
			}
			for _, x := range s.Texts(k, c.Vocab) {
				texts[f] = append(texts[f], x.EN+"\n"+x.KO)
			}
		}
		args := []any{k.ID}
		for _, ts := range texts {
			args = append(args, strings.Join(ts, "\n"))
		}
		if _, err := insert.Exec(args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rank := `bm25(cases, 0, ` + strings.Join(weights, ", ") + `)`
	recall, _ := recallAt5(t, set, func(q string) []string {
		words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, `"`+w+`"`)
		}
		if len(quoted) == 0 {
			return nil
		}
		rows, err := db.Query(`SELECT id FROM cases WHERE cases MATCH ? ORDER BY `+rank+` LIMIT 5`, strings.Join(quoted, " OR "))
		if err != nil {
			t.Fatalf("fts5 %q: %v", q, err)
		}
		defer rows.Close()
		var ids []string
		for rows.Next() {
			var id string
			rows.Scan(&id)
			ids = append(ids, id)
		}
		return ids
	})
	return recall
}

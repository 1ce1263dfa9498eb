package search_test

import (
	"database/sql"
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
	if _, err := db.Exec(`CREATE VIRTUAL TABLE cases USING fts5(id UNINDEXED, title, trig, symptoms, terms, summary, org, rest)`); err != nil {
		t.Fatal(err)
	}
	both := func(x incidentlib.Text) string { return x.EN + "\n" + x.KO }
	for _, k := range c.Cases {
		var terms, rest []string
		for _, f := range []string{incidentlib.VocabDomain, incidentlib.VocabSymptoms, incidentlib.VocabRootCause, incidentlib.VocabComponents, incidentlib.VocabContributing} {
			for _, id := range incidentlib.CaseTerms(k, f) {
				t := c.Vocab.Term(f, id)
				terms = append(terms, id, t.Label.EN, t.Label.KO)
			}
		}
		rest = append(rest, both(k.Detection), both(k.Lessons))
		for _, it := range append(k.Remediation, k.ActionItems...) {
			rest = append(rest, both(it.Text))
		}
		if _, err := db.Exec(`INSERT INTO cases VALUES (?,?,?,?,?,?,?,?)`, k.ID, both(k.Title), both(k.Trigger),
			both(k.SymptomsText), strings.Join(terms, " "), both(k.Summary), k.Org, strings.Join(rest, "\n")); err != nil {
			t.Fatal(err)
		}
	}
	recall, _ := recallAt5(t, set, func(q string) []string {
		words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, `"`+w+`"`)
		}
		if len(quoted) == 0 {
			return nil
		}
		rows, err := db.Query(`SELECT id FROM cases WHERE cases MATCH ? ORDER BY bm25(cases, 0, 4, 3, 3, 2.5, 2, 2, 1) LIMIT 5`, strings.Join(quoted, " OR "))
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

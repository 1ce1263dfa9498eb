package search_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
)

// digested returns copies of cases with the digests a store would give.
func digested(t testing.TB, cases []*incidentlib.Case) []*incidentlib.Case {
	out := make([]*incidentlib.Case, len(cases))
	for i, c := range cases {
		k := *c
		b, err := json.Marshal(&k)
		if err != nil {
			t.Fatal(err)
		}
		k.Digest = incidentlib.Digest(b)
		out[i] = &k
	}
	return out
}

var testPrint = [32]byte{1, 2, 3}

// TestSnapshot: an index written to a snapshot and loaded again answers
// exactly as the index written (after an update, a deletion and an
// addition, so with an empty document number and a moved case), and a
// snapshot is refused, with ErrSnapshotStale and the reason, when it is
// not of exactly the cases given: another program, a changed, missing,
// extra or re-hidden case, a damaged or cut file, or a case without a
// digest.
func TestSnapshot(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	cases := digested(t, c.Cases[:120])
	ix, err := search.New(c.Vocab, cases)
	if err != nil {
		t.Fatal(err)
	}
	upd := *cases[3]
	upd.Summary.EN = "quokkaflux " + upd.Summary.EN
	upd.Digest = 77
	add := *cases[5]
	add.ID, add.Digest = "IL-12345", 78
	for _, k := range []*incidentlib.Case{&upd, &add} {
		if err := ix.Upsert(k); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Delete(cases[7].ID); err != nil {
		t.Fatal(err)
	}
	now := append([]*incidentlib.Case{}, cases...)
	now[3] = &upd
	now = append(now[:7], now[8:]...)
	now = append(now, &add)
	var buf bytes.Buffer
	if err := ix.WriteSnapshot(&buf, testPrint); err != nil {
		t.Fatal(err)
	}
	snap := buf.Bytes()
	loaded, err := search.LoadSnapshot(bytes.NewReader(snap), c.Vocab, now, testPrint)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := indexAnswers(t, loaded), indexAnswers(t, ix); got != want {
		t.Fatalf("the loaded index answers otherwise than the one written:\n%s", firstDiff(got, want))
	}
	// Writes to a loaded index work as to a built one.
	more := *now[0]
	more.Title.EN = "zebrine " + more.Title.EN
	if err := loaded.Upsert(&more); err != nil {
		t.Fatal(err)
	}
	if res := mustSearch(t, loaded.Public(), search.Query{Text: "zebrine"}); res.Total != 1 {
		t.Fatalf("a write to a loaded index: %d hits, want 1", res.Total)
	}

	changed := *now[10]
	changed.Digest++
	hidden := *now[11]
	hidden.Private = true
	refuse := map[string]struct {
		snap  []byte
		print [32]byte
		cases []*incidentlib.Case
		why   string
	}{
		"another program":         {snap, [32]byte{9}, now, "another program"},
		"a changed case":          {snap, testPrint, replace(now, 10, &changed), "changed"},
		"a hidden case":           {snap, testPrint, replace(now, 11, &hidden), "visibility"},
		"a case gone":             {snap, testPrint, now[1:], "no longer in the store"},
		"a case more":             {snap, testPrint, append(append([]*incidentlib.Case{}, now...), cases[7]), "the store holds"},
		"not a snapshot":          {[]byte("hello"), testPrint, now, "not an index snapshot"},
		"cut in the header":       {snap[:20], testPrint, now, "damaged header"},
		"cut in the documents":    {snap[:200], testPrint, now, "damaged document"},
		"cut in the postings":     {snap[:len(snap)*2/3], testPrint, now, "damaged"},
		"cut at the last byte":    {snap[:len(snap)-1], testPrint, now, "damaged"},
		"bytes after the end":     {append(append([]byte{}, snap...), 0), testPrint, now, "bytes after the end"},
		"a document out of order": {outOfOrder(t, snap), testPrint, now, "damaged postings"},
	}
	for name, r := range refuse {
		_, err := search.LoadSnapshot(bytes.NewReader(r.snap), c.Vocab, r.cases, r.print)
		if !errors.Is(err, search.ErrSnapshotStale) || !strings.Contains(err.Error(), r.why) {
			t.Errorf("%s: %v, want ErrSnapshotStale saying %q", name, err, r.why)
		}
	}
	nodigest := *now[2]
	nodigest.Digest = 0
	if err := loaded.Upsert(&nodigest); err != nil {
		t.Fatal(err)
	}
	if err := loaded.WriteSnapshot(&bytes.Buffer{}, testPrint); err == nil || !strings.Contains(err.Error(), "no digest") {
		t.Errorf("a snapshot of a case without a digest: %v", err)
	}
}

func replace(cases []*incidentlib.Case, i int, c *incidentlib.Case) []*incidentlib.Case {
	out := append([]*incidentlib.Case{}, cases...)
	out[i] = c
	return out
}

// outOfOrder swaps the first two document numbers of a posting list of
// "etcd" that has two or more, so that the list is out of order.
func outOfOrder(t *testing.T, snap []byte) []byte {
	b := append([]byte{}, snap...)
	term := []byte("etcd")
	for from := 0; ; {
		i := bytes.Index(b[from:], term)
		if i < 0 {
			break
		}
		i += from
		from = i + 1
		// A term is its length (uint32), its bytes, its count (uint32),
		// then its document numbers.
		at := i + len(term)
		if i < 4 || at+12 > len(b) || b[i-4] != byte(len(term)) || b[i-3] != 0 || b[i-2] != 0 || b[i-1] != 0 {
			continue
		}
		if n := int(b[at]) | int(b[at+1])<<8 | int(b[at+2])<<16 | int(b[at+3])<<24; n >= 2 {
			first, second := append([]byte{}, b[at+4:at+8]...), append([]byte{}, b[at+8:at+12]...)
			copy(b[at+4:], second)
			copy(b[at+8:], first)
			return b
		}
	}
	t.Fatal("no list of etcd with two documents in the snapshot")
	return nil
}

// FuzzLoadSnapshot: no byte string makes LoadSnapshot panic or succeed
// with a file that is not a snapshot of the cases.
func FuzzLoadSnapshot(f *testing.F) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		f.Fatal(err)
	}
	cases := digested(f, c.Cases[:20])
	ix, err := search.New(c.Vocab, cases)
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ix.WriteSnapshot(&buf, testPrint); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:100])
	f.Fuzz(func(t *testing.T, b []byte) {
		loaded, err := search.LoadSnapshot(bytes.NewReader(b), c.Vocab, cases, testPrint)
		if err == nil {
			// Only a snapshot of these cases loads: it answers as the index.
			if res := mustSearch(t, loaded.Public(), search.Query{Text: "coredns"}); res.Total != mustSearch(t, ix.Public(), search.Query{Text: "coredns"}).Total {
				t.Fatalf("a loaded byte string answers otherwise")
			}
		}
	})
}

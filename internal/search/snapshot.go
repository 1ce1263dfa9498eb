package search

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"unsafe"

	"github.com/incidentlib/incidentlib"
)

// A snapshot is the index's posting lists and document lengths written to
// a file, so that a server restarting on a large library loads them rather
// than analysing every case again (at 50,000 cases the analysis is most
// of a start). It is a cache: it holds no case text, and Load uses it only
// when it describes exactly the cases the store gives, each checked by its
// stored bytes' checksum (incidentlib.Case.Digest), and was written by the
// same program over the same vocabulary (the fingerprint). Anything else
// is refused with the reason, and the caller builds the index.
//
// The format, little-endian: the magic and version, the fingerprint, the
// number of documents; for each document its id (empty for a deleted
// one), digest, private flag and field lengths; for each field its terms,
// each with its posting list (document numbers, then frequencies).

const (
	snapshotMagic   = "ILIXSNAP"
	snapshotVersion = 1
	// maxSnapshotTerm bounds a term's length, and maxSnapshotDocs the
	// documents, so that a damaged file cannot ask for unbounded memory.
	maxSnapshotTerm = 1 << 16
	maxSnapshotDocs = 1 << 26
)

// ErrSnapshotStale is the kind of Load's error when the snapshot does not
// describe the cases given (or comes from another program or vocabulary):
// the caller then builds the index and writes a new snapshot.
var ErrSnapshotStale = errors.New("the index snapshot does not match")

// WriteSnapshot writes the index to w, with the fingerprint of the program
// and vocabulary that made it. It refuses when a case has no digest (its
// store gives none), since such a snapshot could never be checked.
func (ix *Index) WriteSnapshot(w io.Writer, fingerprint [32]byte) error {
	if !littleEndian {
		return errors.New("index snapshots are written on little-endian machines only")
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for _, c := range ix.docs {
		if c != nil && c.Digest == 0 {
			return fmt.Errorf("case %s has no digest; its store gives none, so no snapshot is written", c.ID)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	put := func(v any) { _ = binary.Write(bw, binary.LittleEndian, v) }
	putString := func(s string) {
		put(uint32(len(s)))
		bw.WriteString(s)
	}
	bw.WriteString(snapshotMagic)
	put(uint32(snapshotVersion))
	bw.Write(fingerprint[:])
	put(uint32(nFields))
	put(uint32(len(ix.docs)))
	for d, c := range ix.docs {
		if c == nil {
			putString("")
			continue
		}
		putString(c.ID)
		put(c.Digest)
		put(c.Private)
		for f := 0; f < nFields; f++ {
			put(ix.flen[f][d])
		}
	}
	for f := 0; f < nFields; f++ {
		terms := make([]string, 0, len(ix.post[f]))
		for t := range ix.post[f] {
			terms = append(terms, t)
		}
		slices.Sort(terms)
		put(uint32(len(terms)))
		for _, t := range terms {
			p := ix.post[f][t]
			putString(t)
			put(uint32(len(p.docs)))
			bw.Write(u32bytes(p.docs))
			bw.Write(u16bytes(p.tfs))
		}
	}
	return bw.Flush()
}

// LoadSnapshot builds the index of cases from a snapshot read from r,
// without analysing them. It fails with an error of kind ErrSnapshotStale
// when the snapshot is not of exactly these cases (by id, digest and
// visibility), of this program and vocabulary (fingerprint), or is
// damaged.
func LoadSnapshot(r io.Reader, v *incidentlib.Vocab, cases []*incidentlib.Case, fingerprint [32]byte) (*Index, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	stale := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrSnapshotStale, fmt.Sprintf(format, a...))
	}
	if !littleEndian {
		return nil, stale("this machine is not little-endian")
	}
	var err error
	get := func(v any) {
		if err == nil {
			err = binary.Read(br, binary.LittleEndian, v)
		}
	}
	getString := func(limit uint32) string {
		var n uint32
		get(&n)
		if err != nil {
			return ""
		}
		if n > limit {
			err = fmt.Errorf("a string of %d bytes", n)
			return ""
		}
		b := make([]byte, n)
		_, err = io.ReadFull(br, b)
		return string(b)
	}
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != snapshotMagic {
		return nil, stale("not an index snapshot")
	}
	var version, fields, ndocs uint32
	var fp [32]byte
	get(&version)
	get(&fp)
	get(&fields)
	get(&ndocs)
	switch {
	case err != nil:
		return nil, stale("damaged header: %v", err)
	case version != snapshotVersion:
		return nil, stale("format %d, not %d", version, snapshotVersion)
	case fp != fingerprint:
		return nil, stale("written by another program or vocabulary")
	case int(fields) != nFields:
		return nil, stale("%d fields, not %d", fields, nFields)
	case ndocs > maxSnapshotDocs || int(ndocs) > 4*len(cases)+1024:
		// Deleted cases leave empty numbers, but not four for every
		// case: a number that large is damage.
		return nil, stale("%d documents for %d cases", ndocs, len(cases))
	}
	byID := make(map[string]*incidentlib.Case, len(cases))
	for _, c := range cases {
		byID[c.ID] = c
	}
	ix := newEmpty(v)
	ix.grow(int(ndocs))
	ix.building = true
	placed := 0
	for d := uint32(0); d < ndocs; d++ {
		id := getString(64)
		if err != nil {
			return nil, stale("damaged document %d: %v", d, err)
		}
		if id == "" {
			continue
		}
		var digest uint32
		var private bool
		var lens [maxFields]uint16
		get(&digest)
		get(&private)
		for f := 0; f < nFields; f++ {
			get(&lens[f])
		}
		if err != nil {
			return nil, stale("damaged document %d: %v", d, err)
		}
		c := byID[id]
		switch {
		case c == nil:
			return nil, stale("case %s is no longer in the store", id)
		case c.Digest == 0 || c.Digest != digest:
			return nil, stale("case %s changed", id)
		case c.Private != private:
			return nil, stale("case %s changed visibility", id)
		}
		if _, dup := ix.byID[id]; dup {
			return nil, stale("case %s appears twice", id)
		}
		ix.place(c, d, lens)
		placed++
	}
	if placed != len(byID) {
		return nil, stale("the store holds %d cases, the snapshot %d", len(byID), placed)
	}
	for f := 0; f < nFields; f++ {
		var nterms uint32
		get(&nterms)
		if err != nil || nterms > maxSnapshotDocs {
			return nil, stale("damaged field %d", f)
		}
		m := make(map[string]*postings, min(nterms, 1<<16))
		for i := uint32(0); i < nterms; i++ {
			t := getString(maxSnapshotTerm)
			var n uint32
			get(&n)
			if err != nil || n == 0 || n > ndocs {
				return nil, stale("damaged term in field %d: %v", f, err)
			}
			p := &postings{docs: make([]uint32, n), tfs: make([]uint16, n)}
			if _, err := io.ReadFull(br, u32bytes(p.docs)); err != nil {
				return nil, stale("damaged postings in field %d: %v", f, err)
			}
			if _, err := io.ReadFull(br, u16bytes(p.tfs)); err != nil {
				return nil, stale("damaged postings in field %d: %v", f, err)
			}
			for k, d := range p.docs {
				if d >= ndocs || ix.docs[d] == nil || (k > 0 && p.docs[k-1] >= d) {
					return nil, stale("damaged postings of %q in field %d", t, f)
				}
			}
			m[t] = p
		}
		ix.post[f] = m
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, stale("bytes after the end")
	}
	ix.building = false
	slices.SortFunc(ix.facetTab, compareFacets)
	ix.changed()
	return ix, nil
}

// littleEndian reports whether the machine lays numbers out as the
// snapshot does.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// u32bytes and u16bytes are the bytes of s as the machine lays them out:
// the snapshot's layout on a little-endian machine.
func u32bytes(s []uint32) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*4)
}

func u16bytes(s []uint16) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*2)
}

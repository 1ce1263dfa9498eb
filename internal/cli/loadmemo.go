package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
)

// A corpus folder is parsed and checked again only when it changed. Main
// runs many times in one process (the tests, and any program that embeds
// the command line), and reading and checking every case file is most of
// what a command like show or export costs. A folder is the same when
// every file under cases/ and its vocab.yaml has the same name, size and
// modification time; each caller then gets cases of its own, decoded from
// a JSON copy, as corpus.LoadEmbedded hands them out.

// loadMemo is what one load of a folder left.
type loadMemo struct {
	print    string
	files    int
	problems corpus.Problems
	vocab    *incidentlib.Vocab // nil when the vocabulary was invalid
	cases    []byte             // the valid cases, as JSON
}

// loads maps a folder's absolute path to its *loadMemo.
var loads sync.Map

// fingerprint names every file a load of root reads with its size and
// modification time.
func fingerprint(root string, ownVocab bool) (string, error) {
	var b strings.Builder
	err := filepath.WalkDir(filepath.Join(root, "cases"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %d %v\n", p, info.Size(), info.ModTime().UnixNano(), info.Mode())
		return nil
	})
	if err != nil {
		return "", err
	}
	if ownVocab {
		info, err := os.Stat(filepath.Join(root, "vocab.yaml"))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "vocab %d %d\n", info.Size(), info.ModTime().UnixNano())
	}
	return b.String(), nil
}

// memoLoad loads the folder src names, or hands out a copy of its last
// load when no file changed since.
func memoLoad(src corpusSource) (*corpus.Result, error) {
	root, err := filepath.Abs(src.root)
	if err != nil {
		return corpus.Load(src.fsys, src.vocabFS)
	}
	print, perr := fingerprint(root, src.vocabFS == nil)
	if v, ok := loads.Load(root); ok && perr == nil {
		if m := v.(*loadMemo); m.print == print {
			return m.result()
		}
	}
	res, err := corpus.Load(src.fsys, src.vocabFS)
	if err != nil || perr != nil {
		return res, err
	}
	m := &loadMemo{print: print, files: res.Files, problems: res.Problems}
	if res.Corpus != nil {
		m.vocab = res.Corpus.Vocab
		if m.cases, err = json.Marshal(res.Corpus.Cases); err != nil {
			return res, nil // not kept; this load stands
		}
	}
	// The folder may have changed while it was read: keep the load only
	// if the fingerprint still holds.
	if again, err := fingerprint(root, src.vocabFS == nil); err == nil && again == print {
		loads.Store(root, m)
	}
	return res, nil
}

func (m *loadMemo) result() (*corpus.Result, error) {
	res := &corpus.Result{Files: m.files, Problems: m.problems}
	if m.vocab == nil {
		return res, nil
	}
	var cases []*incidentlib.Case
	if err := json.Unmarshal(m.cases, &cases); err != nil {
		return nil, fmt.Errorf("decode the cases read before: %w", err)
	}
	res.Corpus = corpus.NewCorpus(m.vocab, cases)
	return res, nil
}

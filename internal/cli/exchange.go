package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/decodeall"
	"github.com/incidentlib/incidentlib/internal/library"
	"github.com/incidentlib/incidentlib/internal/server"
	"github.com/incidentlib/incidentlib/internal/view"
)

// MaxImportSize bounds what import reads, so a wrong file cannot exhaust memory.
const MaxImportSize = 256 << 20

func exportCmd(e *env) *cobra.Command {
	var format, baseURL, output string
	cmd := &cobra.Command{
		Annotations: readsDir(),
		Use:         "export",
		Short:       "Write every case as JSON, JSON Lines or CSV",
		Long: `Write every case as JSON (an array of cases in the API shape), JSON Lines (one
case a line) or CSV (one row a case, lists joined with ";").`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := e.loadCorpus()
			if err != nil {
				return err
			}
			if err := exportFormat(format); err != nil {
				return err
			}
			w := e.stdout
			if output != "" && output != "-" {
				f, err := os.Create(output)
				if err != nil {
					return openFailed(err)
				}
				defer f.Close()
				w = f
			}
			bw := bufio.NewWriter(w)
			if err := Export(bw, c, format, baseURL); err != nil {
				return err
			}
			return bw.Flush()
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "json, jsonl or csv")
	cmd.Flags().StringVar(&baseURL, "base-url", incidentlib.DefaultBaseURL, "base URL that case URLs are derived from")
	cmd.Flags().StringVarP(&output, "output", "o", "", "file to write (default standard output)")
	return cmd
}

// exportFormat refuses a format Export does not write, with an error of
// kind ErrInvalid.
func exportFormat(format string) error {
	switch format {
	case "json", "jsonl", "csv":
		return nil
	}
	return incidentlib.Errorf(incidentlib.ErrInvalid, "--format %q is not supported; use json, jsonl or csv", format)
}

// Export writes every case of c in format.
func Export(w io.Writer, c *corpus.Corpus, format, baseURL string) error {
	if err := exportFormat(format); err != nil {
		return err
	}
	cases := make([]*incidentlib.Case, len(c.Cases))
	for i, k := range c.Cases {
		cases[i] = view.WithURL(k, baseURL)
	}
	switch format {
	case "json":
		return writeJSON(w, cases, true)
	case "jsonl":
		for _, k := range cases {
			if err := writeJSON(w, k, false); err != nil {
				return err
			}
		}
		return nil
	case "csv":
		cw := csv.NewWriter(w)
		// The identity columns, the sections the table exports, then the
		// rest.
		head := []string{"id", "org", "org_slug", "date", "date_kind"}
		for _, s := range incidentlib.Sections {
			switch {
			case !s.CSV:
			case s.Kind == incidentlib.Prose:
				head = append(head, s.Key+"_en", s.Key+"_ko")
			default:
				head = append(head, s.Key)
			}
		}
		cw.Write(append(head, "detected_after", "resolved_after", "source", "related", "reviewed", "updated_at", "url"))
		for _, k := range cases {
			src := ""
			if len(k.Sources) > 0 {
				src = k.Sources[0].URL
			}
			row := []string{k.ID, k.Org, k.OrgSlug, k.Date, k.DateKind}
			for _, s := range incidentlib.Sections {
				switch {
				case !s.CSV:
				case s.Kind == incidentlib.Prose:
					t := s.Text(k)
					row = append(row, t.EN, t.KO)
				case s.Kind == incidentlib.Terms:
					row = append(row, strings.Join(s.Terms(k), ";"))
				default:
					row = append(row, strings.Join(s.In(k, c.Vocab, "en"), ";"))
				}
			}
			cw.Write(append(row, deref(k.Timeline.DetectedAfter), deref(k.Timeline.ResolvedAfter),
				src, strings.Join(k.Related, ";"), strconv.FormatBool(k.Reviewed()), k.UpdatedAt, k.URL))
		}
		cw.Flush()
		return cw.Error()
	}
	return nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func importCmd(e *env) *cobra.Command {
	var dbPath, dbURL string
	cmd := &cobra.Command{
		Annotations: readsDir(),
		Use:         "import FILE...",
		Short:       "Read cases from JSON or JSON Lines into case files or a database",
		Long: `Read cases in the API shape from each FILE (a JSON array or JSON Lines; - for
standard input) and check each exactly as validate does. When any case of any
FILE has a problem, every problem is listed and nothing is written: several
files load as one, all or nothing.

Without --db or --database-url the cases are written as cases/ID.yaml in the
corpus folder (--dir, default the repository).

With --db (a SQLite file) or --database-url (PostgreSQL), they are loaded
into that database in one transaction, all or nothing, the way serve would
see them: the database is created and seeded from the corpus (--dir, or the
one built into the binary) as serve does, and related cases may name any case
it then holds. A server on the same PostgreSQL database sees the load at once;
a server on a SQLite file sees it when it starts again. On a terminal a
progress line counts the cases written.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dbPath != "" && dbURL != "" {
				return usage(errors.New("give --db (SQLite) or --database-url (PostgreSQL), not both"))
			}
			toDB := dbPath != "" || dbURL != ""
			src, err := locate(e.dir)
			if err != nil {
				return err
			}
			if !toDB && src.root == "" {
				return usage(errors.New("no corpus folder to write to; run inside the repository, pass --dir, or load into a database with --db or --database-url"))
			}
			var ins []importInput
			for _, a := range args {
				data, name, err := e.readInput(a)
				if err != nil {
					return err
				}
				ins = append(ins, importInput{name, data})
			}
			res, err := src.load()
			if err != nil {
				return err
			}
			if res.Corpus == nil {
				return usage(errors.New("the corpus vocabulary is invalid; run incidentlib validate"))
			}
			if toDB {
				return e.importToDB(cmd.Context(), ins, res, dbPath, dbURL)
			}
			_, files, probs := importCases(ins, res.Corpus)
			if len(probs) > 0 {
				return e.refuse(probs)
			}
			for id, data := range files {
				if err := writeFileAtomic(filepath.Join(src.root, "cases", id+".yaml"), data); err != nil {
					return failure(err)
				}
			}
			fmt.Fprintf(e.stdout, "%d cases written to %s\n", len(files), filepath.Join(src.root, "cases"))
			return nil
		},
	}
	cmd.Flags().StringVar(&dbPath, "db", "", "load into this SQLite database file (created if missing) instead of writing case files")
	cmd.Flags().StringVar(&dbURL, "database-url", "", "load into this PostgreSQL database instead of writing case files")
	return cmd
}

// readInput reads FILE, or standard input for -, up to MaxImportSize.
func (e *env) readInput(arg string) ([]byte, string, error) {
	var r io.Reader = e.stdin
	name := "stdin"
	if arg != "-" {
		f, err := os.Open(arg)
		if err != nil {
			return nil, "", openFailed(err)
		}
		defer f.Close()
		r, name = f, arg
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxImportSize+1))
	if err != nil {
		return nil, "", failure(err)
	}
	if len(data) > MaxImportSize {
		return nil, "", usage(fmt.Errorf("%s is larger than %d MiB; split it", name, MaxImportSize>>20))
	}
	return data, name, nil
}

// refuse lists the problems and writes nothing (exit 1).
func (e *env) refuse(probs corpus.Problems) error {
	for _, p := range probs {
		fmt.Fprintln(e.stdout, p.String())
	}
	fmt.Fprintf(e.stdout, "nothing written: %d problems\n", len(probs))
	return &ExitError{Code: ExitProblems}
}

// importToDB loads the input into a database in one transaction, after
// seeding it from the corpus as serve would, with the database's cases as
// the ones related ids may name.
func (e *env) importToDB(ctx context.Context, ins []importInput, res *corpus.Result, dbPath, dbURL string) error {
	cfg := server.DefaultConfig()
	cfg.DBPath, cfg.DatabaseURL = dbPath, dbURL
	st, where, err := openStore(ctx, cfg)
	if err != nil {
		return failure(err)
	}
	defer st.Close()
	bw, ok := st.(incidentlib.BulkWriter)
	if !ok {
		return failure(fmt.Errorf("the store %s cannot load many cases at once", where))
	}
	if _, err := st.Seed(ctx, res.Corpus.Cases); err != nil {
		return failure(fmt.Errorf("seed %s: %w", where, err))
	}
	have, err := st.Cases(ctx)
	if err != nil {
		return failure(err)
	}
	cases, _, probs := importCases(ins, corpus.NewCorpus(res.Corpus.Vocab, have))
	if len(probs) > 0 {
		return e.refuse(probs)
	}
	progress := func(int) {}
	if isTerminal(e.stderr) {
		progress = func(done int) { fmt.Fprintf(e.stderr, "\rloading into %s: %d of %d cases", where, done, len(cases)) }
	}
	created, err := bw.PutAll(ctx, cases, progress)
	if isTerminal(e.stderr) {
		fmt.Fprintln(e.stderr)
	}
	if err != nil {
		return failure(fmt.Errorf("nothing loaded into %s: %w", where, err))
	}
	fmt.Fprintf(e.stdout, "%d cases loaded into %s (%d new, %d replaced)\n", len(cases), where, created, len(cases)-created)
	if path, ok := strings.CutPrefix(where, "sqlite:"); ok {
		// The search index of the database's cases, as serve keeps it
		// beside the file, so that serve's next start loads it rather
		// than building it (a large load is the case for it).
		all := map[string]*incidentlib.Case{}
		for _, k := range have {
			all[k.ID] = k
		}
		for _, k := range cases {
			all[k.ID] = k
		}
		list := make([]*incidentlib.Case, 0, len(all))
		for _, k := range all {
			list = append(list, k)
		}
		if err := library.WriteSnapshot(path+".index", res.Corpus.Vocab, list); err != nil {
			fmt.Fprintf(e.stderr, "the search index was not written beside the database (serve builds it at its next start): %v\n", err)
		} else {
			fmt.Fprintf(e.stdout, "search index written to %s.index for serve's next start\n", path)
		}
	}
	return nil
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Import parses cases from JSON or JSON Lines and checks each one as a case
// file against c (its vocabulary and the ids it and the input hold). It
// returns the files to write, keyed by id, or the problems.
func Import(name string, data []byte, c *corpus.Corpus) (map[string][]byte, corpus.Problems) {
	_, files, probs := importCases([]importInput{{name, data}}, c)
	return files, probs
}

// importInput is one input of an import: its name and its bytes.
type importInput struct {
	name string
	data []byte
}

// importCases is Import over several inputs, as one, that also gives the
// cases as read back from their files, in input order.
func importCases(ins []importInput, c *corpus.Corpus) ([]*incidentlib.Case, map[string][]byte, corpus.Problems) {
	im := &importer{}
	for _, in := range ins {
		im.name = in.name
		trimmed := bytes.TrimSpace(in.data)
		if len(trimmed) == 0 {
			return nil, nil, corpus.Problems{{File: in.name, Line: 1, Msg: "the input is empty; expected a JSON array of cases or one case a line"}}
		}
		if trimmed[0] == '[' {
			if fatal := im.decodeArray(in.data); fatal != nil {
				return nil, nil, fatal
			}
		} else {
			im.decodeLines(in.data)
		}
	}
	known := im.knownIDs(c)
	cases, files := im.writeCases(c, known)
	if len(im.probs) > 0 {
		return nil, nil, im.probs
	}
	return cases, files, nil
}

// importer is one run of importCases: the name of the input being read,
// the cases read with their inputs and lines, and the problems found so far.
type importer struct {
	name    string
	entries []importEntry
	probs   corpus.Problems
}

// importEntry is a case of the input and the line it starts on.
type importEntry struct {
	file string
	line int
	k    incidentlib.Case
}

// decodeOne reads the case raw, which starts on line, or reports why it
// is not one.
func (im *importer) decodeOne(line int, raw []byte) {
	var k incidentlib.Case
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&k); err != nil {
		im.probs = append(im.probs, corpus.Problem{File: im.name, Line: line, Msg: "not a case in the API shape: " + err.Error()})
		return
	}
	im.entries = append(im.entries, importEntry{im.name, line, k})
}

// decodeArray reads a JSON array of cases. Malformed JSON is the one
// problem returned.
func (im *importer) decodeArray(data []byte) corpus.Problems {
	var raws []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raws); err != nil {
		return corpus.Problems{{File: im.name, Line: lineAt(data, dec.InputOffset()), Msg: "malformed JSON: " + err.Error()}}
	}
	// Find where each element starts, to name its line.
	off := bytes.IndexByte(data, '[') + 1
	for _, raw := range raws {
		i := bytes.Index(data[off:], raw)
		line := lineAt(data, int64(off+max(i, 0)))
		if i >= 0 {
			off += i + len(raw)
		}
		im.decodeOne(line, raw)
	}
	return nil
}

// decodeLines reads one case a line, skipping blank lines.
func (im *importer) decodeLines(data []byte) {
	for i, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		im.decodeOne(i+1, l)
	}
}

// knownIDs returns the ids of the corpus's cases and the input's, and
// reports a case the input holds twice.
func (im *importer) knownIDs(c *corpus.Corpus) map[string]bool {
	known := map[string]bool{}
	for _, k := range c.Cases {
		known[k.ID] = true
	}
	seen := map[string]importEntry{}
	for _, en := range im.entries {
		if prev, dup := seen[en.k.ID]; dup && en.k.ID != "" {
			where := fmt.Sprintf("line %d", prev.line)
			if prev.file != en.file {
				where = fmt.Sprintf("%s:%d", prev.file, prev.line)
			}
			im.probs = append(im.probs, corpus.Problem{File: en.file, Line: en.line, Msg: fmt.Sprintf("case %s appears twice in the input (first at %s)", en.k.ID, where)})
		}
		seen[en.k.ID] = en
		known[en.k.ID] = true
	}
	return known
}

// writeCases writes each case as its YAML file, reads it back and checks
// it as validate would, with the cases it names among the known ones. It
// returns the cases read back, in input order, and the files by id. The
// cases are checked on every core (a large import is mostly this); the
// problems and cases come out in input order all the same.
func (im *importer) writeCases(c *corpus.Corpus, known map[string]bool) ([]*incidentlib.Case, map[string][]byte) {
	type result struct {
		yaml   []byte
		parsed *incidentlib.Case
		probs  corpus.Problems
	}
	next := 0
	out, _ := decodeall.Stream(func() (int, bool, error) {
		next++
		return next - 1, next <= len(im.entries), nil
	}, func(i int) (res result, _ error) {
		en := &im.entries[i]
		name, r := en.file, &res
		k := en.k
		k.URL = ""
		y, err := corpus.MarshalCase(&k)
		if err != nil {
			r.probs = append(r.probs, corpus.Problem{File: name, Line: en.line, Msg: "cannot write the case as YAML: " + err.Error()})
			return res, nil
		}
		r.yaml = y
		file := "cases/" + k.ID + ".yaml"
		if k.ID == "" || strings.ContainsAny(k.ID, `/\.`) {
			file = "cases/unnamed.yaml"
		}
		parsed, _, ps := corpus.ParseCase(file, y, c.Vocab)
		for _, p := range ps {
			r.probs = append(r.probs, corpus.Problem{File: name, Line: en.line, Msg: fmt.Sprintf("case %s: %s", orQ(k.ID), p.Msg)})
		}
		if parsed != nil {
			for _, rel := range parsed.Related {
				if !known[rel] {
					r.probs = append(r.probs, corpus.Problem{File: name, Line: en.line, Msg: fmt.Sprintf("case %s: related case %s does not exist in the corpus or the input", orQ(k.ID), rel)})
				}
			}
			if rec := parsed.RecurrenceOf; rec != nil && !known[*rec] {
				r.probs = append(r.probs, corpus.Problem{File: name, Line: en.line, Msg: fmt.Sprintf("case %s: recurrence_of names %s, which does not exist", orQ(k.ID), *rec)})
			}
			r.parsed = parsed
		}
		return res, nil
	})
	files := map[string][]byte{}
	var cases []*incidentlib.Case
	for i, r := range out {
		im.probs = append(im.probs, r.probs...)
		if r.parsed != nil {
			cases = append(cases, r.parsed)
		}
		if r.yaml != nil {
			files[im.entries[i].k.ID] = r.yaml
		}
	}
	return cases, files
}

func orQ(id string) string {
	if id == "" {
		return "(without id)"
	}
	return id
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// writeFileAtomic writes data beside path and renames it into place, so a
// crash never leaves half a case file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".import-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

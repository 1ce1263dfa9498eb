package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/incidentlib/incidentlib/internal/corpus"
)

func fmtCmd(e *env) *cobra.Command {
	var unwrap, check bool
	c := &cobra.Command{
		Annotations: readsDir(),
		Use:         "fmt [FILE...]",
		Short:       "Rewrite case files in the canonical form",
		Long: `Rewrite case files in the form import writes: fields in the documented
order and every text as a block scalar, so that no " #" can cut a text short.
With --unwrap, paragraphs broken over several lines are joined into one line
each (list items, fenced blocks and lines indented as code stay as they are).
Without FILE, every file of cases/ in the corpus folder. A file that cannot
be read as a case is left untouched and its problems are listed (exit 1).
With --check nothing is written; the files that would change are listed and
the exit code is 1 when there is any.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && e.dir != "" {
				return usage(errors.New("fmt formats the FILEs given, or every case of the folder --dir names: give one or the other"))
			}
			files := args
			if len(files) == 0 {
				src, err := locate(e.dir)
				if err != nil {
					return err
				}
				if src.root == "" {
					return usage(errors.New("no corpus folder to format; run inside the repository, pass --dir or name the files"))
				}
				files, _ = filepath.Glob(filepath.Join(src.root, "cases", "*.yaml"))
				sort.Strings(files)
			}
			bad, changed := 0, 0
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					return openFailed(err)
				}
				out, probs := corpus.Format(f, data, unwrap)
				if len(probs) > 0 {
					for _, p := range probs {
						fmt.Fprintln(e.stdout, p.String())
					}
					bad++
					continue
				}
				if bytes.Equal(out, data) {
					continue
				}
				changed++
				if check {
					fmt.Fprintln(e.stdout, f)
					continue
				}
				if err := writeFileAtomic(f, out); err != nil {
					return failure(err)
				}
			}
			verb := "rewritten"
			if check {
				verb = "not in canonical form"
			}
			fmt.Fprintf(e.stdout, "%d of %d files %s, %d could not be read\n", changed, len(files), verb, bad)
			if bad > 0 || (check && changed > 0) {
				return &ExitError{Code: ExitProblems}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&unwrap, "unwrap", false, "join lines broken inside a paragraph")
	c.Flags().BoolVar(&check, "check", false, "write nothing; list the files that would change")
	return c
}

package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func validateCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Annotations: readsDir(),
		Use:         "validate [DIR]",
		Short:       "Check every case file and the vocabulary",
		Long: `Check every case file and vocab.yaml: fields, types, ids, vocabulary terms,
dates, durations, URLs, links between cases and both languages on every text.
Prints every problem as FILE:LINE: message, then a line counting the valid
cases. Exits 1 when there is any problem.

DIR is a folder holding cases/ (and vocab.yaml; without one the built-in
vocabulary is used). Default: the repository around the current folder.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := e.dir
			if len(args) == 1 {
				dir = args[0]
			}
			src, err := locate(dir)
			if err != nil {
				return err
			}
			res, err := src.load()
			if err != nil {
				return err
			}
			for _, p := range res.Problems {
				p.File = src.display(p.File)
				fmt.Fprintln(e.stdout, p.String())
			}
			valid := 0
			if res.Corpus != nil {
				valid = len(res.Corpus.Cases)
			}
			fmt.Fprintf(e.stdout, "%d valid cases of %d case files, %d problems\n", valid, res.Files, len(res.Problems))
			if len(res.Problems) > 0 {
				return &ExitError{Code: ExitProblems}
			}
			return nil
		},
	}
}

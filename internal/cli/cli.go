// Package cli implements the incidentlib command line. cmd/incidentlib only
// calls Main, so tests can run every command in-process.
package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
)

// ExitError carries an exit code out of a command.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

// Main runs the command line with args and returns the process exit code:
// 0 success, 1 the input has problems (validate, import), 2 the tool failed.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintln(stderr, "incidentlib:", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintln(stderr, "incidentlib:", err)
	return 2
}

type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	dir            string // --dir: a corpus folder on disk
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "incidentlib",
		Short:         "A bilingual library of infrastructure incidents",
		Long:          "incidentlib loads, checks, searches and serves a library of public infrastructure incident write-ups, each as a structured case in Korean and English.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&e.dir, "dir", "", "corpus folder (holding cases/ and vocab.yaml); default: the repository around the current folder, else the corpus built into the binary")
	for _, add := range commands {
		root.AddCommand(add(e))
	}
	// A flag that a command does not use is refused, never ignored.
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if f := cmd.Flags().Lookup("dir"); f != nil && f.Changed && cmd.Annotations[dirAnnotation] == "" {
			return &ExitError{2, fmt.Errorf("%s does not read a corpus folder, so --dir would have no effect; leave it out", cmd.CommandPath())}
		}
		return nil
	}
	return root
}

// dirAnnotation marks a command that reads the corpus folder --dir names
// (readsDir gives the annotations); the root refuses --dir on any other.
const dirAnnotation = "incidentlib/reads-dir"

func readsDir() map[string]string { return map[string]string{dirAnnotation: "yes"} }

// commands are the constructors of the subcommands: a new command is added
// here, once (help lists them by name).
var commands = []func(*env) *cobra.Command{
	validateCmd, fmtCmd,
	searchCmd, similarCmd, topicCmd, showCmd, statsCmd,
	exportCmd, importCmd,
	serveCmd,
}

// corpusSource says where a corpus is read from.
type corpusSource struct {
	fsys    fs.FS
	vocabFS fs.FS
	root    string // folder on disk, "" for the embedded corpus
}

// locate finds the corpus: dir when given, else the repository around the
// working directory, else the embedded one.
func locate(dir string) (corpusSource, error) {
	if dir != "" {
		if st, err := os.Stat(filepath.Join(dir, "cases")); err != nil || !st.IsDir() {
			if filepath.Base(filepath.Clean(dir)) == "cases" {
				dir = filepath.Dir(filepath.Clean(dir))
			} else {
				return corpusSource{}, &ExitError{2, fmt.Errorf("%s has no cases/ folder; give the folder that holds cases/ and vocab.yaml", dir)}
			}
		}
		src := corpusSource{fsys: os.DirFS(dir), root: dir}
		if _, err := os.Stat(filepath.Join(dir, "vocab.yaml")); err != nil {
			src.vocabFS = incidentlib.CorpusFS()
		}
		return src, nil
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if isCorpusRoot(d) {
				return corpusSource{fsys: os.DirFS(d), root: d}, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return corpusSource{fsys: incidentlib.CorpusFS()}, nil
}

func isCorpusRoot(d string) bool {
	st, err := os.Stat(filepath.Join(d, "cases"))
	if err != nil || !st.IsDir() {
		return false
	}
	_, err = os.Stat(filepath.Join(d, "vocab.yaml"))
	return err == nil
}

func (s corpusSource) load() (*corpus.Result, error) {
	res, err := corpus.Load(s.fsys, s.vocabFS)
	if err != nil {
		return nil, &ExitError{2, err}
	}
	return res, nil
}

// display names a file of the corpus the way a user can open it.
func (s corpusSource) display(file string) string {
	if s.root == "" {
		return "(embedded)/" + file
	}
	if rel, err := filepath.Rel(mustWd(), filepath.Join(s.root, file)); err == nil {
		return rel
	}
	return filepath.Join(s.root, file)
}

func mustWd() string {
	wd, _ := os.Getwd()
	return wd
}

// readCorpus finds the corpus --dir names (or the default one) and loads it
// with every problem.
func (e *env) readCorpus() (corpusSource, *corpus.Result, error) {
	src, err := locate(e.dir)
	if err != nil {
		return corpusSource{}, nil, err
	}
	res, err := src.load()
	return src, res, err
}

// loadCorpus loads the corpus for commands that read it; problems are
// reported on stderr and the valid cases are used.
func (e *env) loadCorpus() (*corpus.Corpus, error) {
	_, res, err := e.readCorpus()
	if err != nil {
		return nil, err
	}
	if len(res.Problems) > 0 {
		fmt.Fprintf(e.stderr, "incidentlib: warning: the corpus has %d problems; run incidentlib validate\n", len(res.Problems))
	}
	if res.Corpus == nil {
		return nil, &ExitError{2, errors.New("the vocabulary is invalid; run incidentlib validate")}
	}
	return res.Corpus, nil
}

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
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/exitcode"
)

// Exit codes. A user error (ExitUsage) is one the user fixes by changing
// the flags, the arguments or the input; a failure (ExitFailure) is
// incidentlib's own, or its surroundings': 2 and 4 mean the same for
// kubegap.
const (
	ExitOK = 0
	// ExitProblems: the command ran and found problems in the input it
	// checks (validate, import, fmt), listed on standard output.
	ExitProblems = 1
	// ExitUsage: a user error: bad flags or arguments, an unknown command,
	// case id or term, a file or folder that does not exist, a query or
	// input that is not valid, a corpus folder serve refuses.
	ExitUsage = 2
	// ExitFailure: incidentlib failed: a file, database or address it
	// could not read, write or open, a corpus that did not load, an
	// internal error.
	ExitFailure = 4
)

// exitCodes says what each exit code means; --help lists them in this
// order.
var exitCodes = []exitcode.Code{
	{Code: ExitOK, Meaning: "success"},
	{Code: ExitProblems, Meaning: `the input has problems (validate, import, fmt --check): each is listed on
standard output, and import writes nothing`},
	{Code: ExitUsage, Meaning: `user error: bad flags or arguments, an unknown command, case id or term, a
file or folder that does not exist, a query or input that is not valid,
a corpus folder serve refuses`},
	{Code: ExitFailure, Meaning: `incidentlib failed: a file, database or address it could not read, write
or open, a corpus that did not load, an internal error; nothing the flags
can change`},
}

// exitCodesHelp is what the root command's help says of the exit codes.
var exitCodesHelp = exitcode.Help(exitCodes)

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

// usage marks err as a user error (ExitUsage).
func usage(err error) error { return &ExitError{ExitUsage, err} }

// failure marks err as incidentlib's failure (ExitFailure).
func failure(err error) error { return &ExitError{ExitFailure, err} }

// failed is what a command returns for err: an ExitError as it is, an
// invalid input or an unknown id or term (incidentlib.ErrInvalid,
// ErrNotFound) as a user error, anything else as a failure.
func failed(err error) error {
	var ee *ExitError
	switch {
	case err == nil || errors.As(err, &ee):
		return err
	case errors.Is(err, incidentlib.ErrInvalid) || errors.Is(err, incidentlib.ErrNotFound):
		return usage(err)
	default:
		return failure(err)
	}
}

// openFailed is failed for a file or folder named on the command line: one
// that does not exist is a user error.
func openFailed(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return usage(err)
	}
	return failed(err)
}

// Main runs the command line with args and returns the process exit code
// (exitCodes).
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	err := execute(root)
	code := exitCode(err)
	if err != nil {
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Err != nil {
			fmt.Fprintln(stderr, "incidentlib:", err)
		}
	}
	return code
}

// execute runs root, turning a panic into a failure.
func execute(root *cobra.Command) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = failure(fmt.Errorf("internal error: panic: %v\n%s", r, debug.Stack()))
		}
	}()
	return root.Execute()
}

// exitCode is the exit code for what Execute returned. Every command's
// errors leave it as ExitErrors (newRoot wraps each RunE with failed), so
// any other error is cobra's refusal of the command line before a command
// ran: an unknown command or flag, a flag value or a count of arguments
// that is wrong.
func exitCode(err error) int {
	var ee *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.Code
	default:
		return ExitUsage
	}
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
		Long:          "incidentlib loads, checks, searches and serves a library of public infrastructure incident write-ups, each as a structured case in Korean and English.\n\n" + exitCodesHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&e.dir, "dir", "", "corpus folder (holding cases/ and vocab.yaml); default: the repository around the current folder, else the corpus built into the binary")
	for _, add := range commands {
		cmd := add(e)
		wrapRun(cmd)
		root.AddCommand(cmd)
	}
	// A flag that a command does not use is refused, never ignored.
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if f := cmd.Flags().Lookup("dir"); f != nil && f.Changed && cmd.Annotations[dirAnnotation] == "" {
			return usage(fmt.Errorf("%s does not read a corpus folder, so --dir would have no effect; leave it out", cmd.CommandPath()))
		}
		return nil
	}
	return root
}

// wrapRun makes cmd's and its subcommands' errors ExitErrors (failed), so
// that the exit code of an error a command returns is never guessed.
func wrapRun(cmd *cobra.Command) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(cmd *cobra.Command, args []string) error { return failed(run(cmd, args)) }
	}
	for _, c := range cmd.Commands() {
		wrapRun(c)
	}
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
				return corpusSource{}, usage(fmt.Errorf("%s has no cases/ folder; give the folder that holds cases/ and vocab.yaml", dir))
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
	load := corpus.Load
	if s.root != "" {
		load = func(fs.FS, fs.FS) (*corpus.Result, error) { return memoLoad(s) }
	}
	res, err := load(s.fsys, s.vocabFS)
	if err != nil {
		return nil, failure(err)
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
	src, res, err := e.readCorpus()
	if err != nil {
		return nil, err
	}
	if len(res.Problems) > 0 {
		fmt.Fprintf(e.stderr, "incidentlib: warning: the corpus has %d problems; run incidentlib validate\n", len(res.Problems))
	}
	if res.Corpus == nil {
		err := errors.New("the vocabulary is invalid; run incidentlib validate")
		if src.root == "" {
			return nil, failure(err) // the built-in corpus
		}
		return nil, usage(err)
	}
	return res.Corpus, nil
}

package corpus

import (
	"github.com/incidentlib/incidentlib"
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestUnwrap(t *testing.T) {
	tests := []struct{ in, want string }{
		{"one\ntwo three\nfour", "one two three four"},
		{"para one\nstill one\n\npara two", "para one still one\n\npara two"},
		{"intro:\n- item one\n  goes on\n- item two", "intro:\n- item one goes on\n- item two"},
		{"1. first\n2. second", "1. first\n2. second"},
		{"log:\n\n    E0228 20:13:53 proxier.go:610] Failed\n    second log line\n\nafter", "log:\n\n    E0228 20:13:53 proxier.go:610] Failed\n    second log line\n\nafter"},
		{"```\na\nb\n```", "```\na\nb\n```"},
		{"한국어 문장이\n이어진다.", "한국어 문장이 이어진다."},
	}
	for _, tt := range tests {
		got := Unwrap(tt.in)
		if got != tt.want {
			t.Errorf("Unwrap(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if n := hardWrap(got); n != 0 {
			t.Errorf("hardWrap(Unwrap(%q)) = %d, want 0", tt.in, n)
		}
	}
	for _, s := range []string{"one\ntwo", "- item\n  continued", "para\n\nfirst\nsecond"} {
		if hardWrap(s) == 0 {
			t.Errorf("hardWrap(%q) = 0, want the line of the break", s)
		}
	}
}

// TestFormat: fmt refuses a file whose text a comment cut short (rewriting it
// would lose the rest for good) and writes the others as block scalars that
// no " #" can cut.
func TestFormat(t *testing.T) {
	cut, err := os.ReadFile("testdata/broken/comment_cut/cases/IL-9001.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if out, probs := Format("IL-9001.yaml", cut, true); out != nil || len(probs) == 0 {
		t.Fatalf("Format accepted a cut file: %v", probs)
	}
	wrapped, err := os.ReadFile("testdata/broken/hard_wrap/cases/IL-9001.yaml")
	if err != nil {
		t.Fatal(err)
	}
	withHash := strings.Replace(string(wrapped), "Fixture lessons.", `"Fixed in (ticket #3497) later."`, 1)
	out, probs := Format("IL-9001.yaml", []byte(withHash), true)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if !strings.Contains(string(out), "First paragraph of a fixture, wrapped by hand.") {
		t.Errorf("the paragraph was not joined:\n%s", out)
	}
	pos, ps := decodeFile("IL-9001.yaml", out, new(caseForTest))
	if pos == nil || len(ps) > 0 {
		t.Fatalf("the formatted file does not decode: %v\n%s", ps, out)
	}
	if !strings.Contains(string(out), "Fixed in (ticket #3497) later.") {
		t.Errorf("the text with a hash was lost:\n%s", out)
	}
	if m := regexp.MustCompile(`(?m)^\s+(en|ko): [^|].*$`).FindString(string(out)); m != "" {
		t.Errorf("a text is not a block scalar: %q", m)
	}
}

type caseForTest = incidentlib.Case

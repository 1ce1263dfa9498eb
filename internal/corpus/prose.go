package corpus

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/lazyre"
)

// Prose rules: a served text is paragraphs separated by a blank line, each
// paragraph one line (a list item, a fenced block or a line indented as code
// may start a new line), and it speaks of the incident, never of its writing.

// listItem matches a line that starts a Markdown list item.
var listItem = lazyre.New(`^\s*([-*+]|[0-9]+[.)])\s`)

// selfReference holds phrases by which a case would speak of how it was
// written or of what its writer could read, in both languages. Matched
// case-insensitively.
var selfReference = []string{
	"available to us", "we could read", "we could not read", "we were able to read",
	"the stored copy", "stored copy of", "the stored page", "the excerpt", "the readable part",
	"the visible part of", "not recorded in this case", "this case does not record",
	"in this case file", "the text we have", "the copy we read", "the portion we",
	"captured in this case", "recorded for this case", "covered in this case", "recorded in this case",
	"이 사례에 담", "이 사례에는 따로", "사례에 담기지", "사례에 담지",
	"번역본", "확인할 수 있었던", "읽을 수 있었던", "읽을 수 있는 부분", "저장된 사본", "저장된 페이지",
	"발췌본", "이 사례에는 기록", "이 사례에 기록되어 있지", "우리가 읽은", "볼 수 있었던 부분",
}

// newLineAllowed reports whether line may start a new line after prev
// inside a paragraph: after a blank line or a fence, for a list item, a
// quote, or next to a line indented as code. Any other break is a hard wrap.
func newLineAllowed(prev, line string) bool {
	pt, t := strings.TrimSpace(prev), strings.TrimSpace(line)
	return pt == "" || strings.HasPrefix(pt, "```") || listItem().MatchString(line) ||
		strings.HasPrefix(line, "    ") || strings.HasPrefix(t, "> ") || strings.HasPrefix(prev, "    ")
}

// hardWrap returns the 1-based line, within s, of the first line break inside
// a paragraph, or 0.
func hardWrap(s string) int {
	lines := strings.Split(s, "\n")
	fence := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			fence = !fence
			continue
		}
		if fence || i == 0 || t == "" || newLineAllowed(lines[i-1], l) {
			continue
		}
		return i + 1
	}
	return 0
}

// Unwrap joins the lines of each paragraph of s, keeping blank lines, list
// items, fenced blocks and lines indented as code. It is what
// "incidentlib fmt --unwrap" applies to hard-wrapped text.
func Unwrap(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	fence := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			fence = !fence
			out = append(out, l)
			continue
		}
		if fence || i == 0 || t == "" || len(out) == 0 || newLineAllowed(out[len(out)-1], l) {
			out = append(out, strings.TrimRight(l, " "))
			continue
		}
		out[len(out)-1] = strings.TrimRight(out[len(out)-1], " ") + " " + t
	}
	return strings.Join(out, "\n")
}

// checkProse applies the prose rules to every text of a case.
func checkProse(file string, pos positions, c *incidentlib.Case) []Problem {
	var probs []Problem
	check := func(fp, lang, s string) {
		line := pos.line(fp)
		if n := hardWrap(s); n > 0 {
			probs = append(probs, Problem{file, line, fmt.Sprintf("%s breaks a line inside a paragraph (its line %d); write each paragraph on one line and separate paragraphs with a blank line (incidentlib fmt --unwrap does this)", fp, n)})
		}
		if lang == "ko" && strings.TrimSpace(s) != "" && !strings.ContainsFunc(s, isHangul) {
			probs = append(probs, Problem{file, line, fmt.Sprintf("%s has no Hangul; write the Korean text in Korean (technical names may stay in Latin script)", fp)})
		}
		low := strings.ToLower(s)
		for _, ph := range selfReference {
			if strings.Contains(low, ph) {
				probs = append(probs, Problem{file, line, fmt.Sprintf("%s speaks of how the case was written (%q); a case speaks of the incident: say what the write-up states, or leave the point out", fp, ph)})
				break
			}
		}
	}
	cp := *c
	walkTexts("", reflect.ValueOf(&cp).Elem(), func(p string, t *incidentlib.Text) {
		check(join(p, "en"), "en", t.EN)
		check(join(p, "ko"), "ko", t.KO)
	})
	return probs
}

// walkTexts calls f for every Text inside v, with its path; v must be
// addressable for f to change the text. It visits only the fields that
// may hold a Text (textFields), as every load of the corpus walks every
// case twice.
func walkTexts(p string, v reflect.Value, f func(p string, t *incidentlib.Text)) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			walkTexts(p, v.Elem(), f)
		}
	case reflect.Struct:
		if v.Type() == textType {
			f(p, v.Addr().Interface().(*incidentlib.Text))
			return
		}
		for _, fd := range textFields(v.Type()) {
			walkTexts(join(p, fd.name), v.Field(fd.index), f)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkTexts(p+"["+strconv.Itoa(i)+"]", v.Index(i), f)
		}
	}
}

var textType = reflect.TypeFor[incidentlib.Text]()

// namedField is a struct field by its index and its YAML name.
type namedField struct {
	index int
	name  string
}

// fieldCache holds textFields' answer per struct type.
var fieldCache sync.Map // reflect.Type → []namedField

// textFields are the fields of struct type t that have a YAML name and
// whose type may hold a Text.
func textFields(t reflect.Type) []namedField {
	if v, ok := fieldCache.Load(t); ok {
		return v.([]namedField)
	}
	var out []namedField
	for i := range t.NumField() {
		fd := t.Field(i)
		name, _, _ := strings.Cut(fd.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !mayHoldText(fd.Type, map[reflect.Type]bool{}) {
			continue
		}
		out = append(out, namedField{i, name})
	}
	fieldCache.Store(t, out)
	return out
}

// mayHoldText reports whether a value of type t may hold a Text (seen
// guards against types that hold themselves).
func mayHoldText(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == textType {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return mayHoldText(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if mayHoldText(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

func isHangul(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 }

// Package casetest helps the tests that range over the sections table:
// Filled gives a case a text in every optional section it leaves empty, so
// that a section added to the table is shown, searched and answered by
// every face before any case of the corpus uses it.
package casetest

import (
	"encoding/json"
	"strings"

	"github.com/incidentlib/incidentlib"
)

// Filler is the text Filled puts in an empty section.
var Filler = incidentlib.Text{EN: "Filler paragraph written for the section", KO: "섹션을 채우는 문단입니다"}

// Filled is a copy of k with Filler in each prose or items section k
// leaves empty, set through the case's JSON so that it needs no change
// when a section is added.
func Filled(k *incidentlib.Case) (*incidentlib.Case, error) {
	b, err := json.Marshal(k)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	text := map[string]any{"en": Filler.EN, "ko": Filler.KO}
	for _, s := range incidentlib.Sections {
		if s.Kind != incidentlib.Prose && s.Kind != incidentlib.Items || strings.TrimSpace(strings.Join(s.In(k, nil, "en"), "")) != "" {
			continue
		}
		if s.Kind == incidentlib.Prose {
			m[s.Key] = text
		} else {
			m[s.Key] = []any{map[string]any{"text": text}}
		}
	}
	if b, err = json.Marshal(m); err != nil {
		return nil, err
	}
	var out incidentlib.Case
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

package corpus

import (
	"fmt"

	"github.com/incidentlib/incidentlib"
)

// checkImpact checks that the impact facts say "unknown" in both languages
// or in neither: "unknown" in English and incidentlib.UnknownKO in Korean,
// so that a page in either language shows the same facts as not given.
// A missing language is reported by checkTexts.
func checkImpact(file string, pos positions, c *incidentlib.Case) []Problem {
	var probs []Problem
	for _, f := range []struct {
		name string
		t    incidentlib.Text
	}{{"scope", c.Impact.Scope}, {"users", c.Impact.Users}, {"region", c.Impact.Region}} {
		p := "impact." + f.name
		if f.t.EN == "" || f.t.KO == "" || !pos.usable(p+".en") || !pos.usable(p+".ko") {
			continue
		}
		switch en, ko := incidentlib.IsUnknown(f.t.EN), incidentlib.IsUnknown(f.t.KO); {
		case en && !ko:
			probs = append(probs, Problem{file, pos.line(p + ".ko"), fmt.Sprintf("%s.en is unknown but %s.ko is %q; where the write-up does not say, write %s in Korean, or give the fact in English too", p, p, truncate(f.t.KO, 40), incidentlib.UnknownKO)})
		case ko && !en:
			probs = append(probs, Problem{file, pos.line(p + ".en"), fmt.Sprintf("%s.ko is %s but %s.en is %q; where the write-up does not say, write unknown in English, or give the fact in Korean too", p, incidentlib.UnknownKO, p, truncate(f.t.EN, 40))})
		}
	}
	return probs
}

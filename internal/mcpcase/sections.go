package mcpcase

import (
	"reflect"
	"strings"

	"github.com/incidentlib/incidentlib"
)

// incidentField maps the JSON names of Incident's fields to their index.
var incidentField = func() map[string]int {
	m := map[string]int{}
	t := reflect.TypeOf(Incident{})
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		m[name] = i
	}
	return m
}()

// fillSections sets the sections of c in language l on inc, ranging over
// incidentlib.Sections: each section with an MCP name goes into the
// Incident field of that JSON name (prose as a string, items as a list,
// terms by vocabulary into the terms map or as the one id). short keeps
// only the sections of the short view. A prose or items section whose MCP
// name Incident has no field for goes into More; one of another kind
// panics, which TestIncidentHasEverySection catches.
func fillSections(inc *Incident, c *incidentlib.Case, v *incidentlib.Vocab, l string, short bool) {
	iv := reflect.ValueOf(inc).Elem()
	for i := range incidentlib.Sections {
		s := &incidentlib.Sections[i]
		if s.MCP == "" || short && !s.Short {
			continue
		}
		fi, ok := incidentField[s.MCP]
		if !ok {
			// A section without a field of its own: prose or items, by
			// the table alone (Schema gives its property).
			if err := canGoInMore(s); err != nil {
				panic("mcpcase: " + err.Error())
			}
			switch texts := s.In(c, v, l); {
			case len(texts) == 0 || s.Kind == incidentlib.Prose && strings.Join(texts, "") == "":
			case s.Kind == incidentlib.Prose:
				inc.More = append(inc.More, Field{s.MCP, strings.Join(texts, "\n")})
			default:
				inc.More = append(inc.More, Field{s.MCP, append([]string{}, texts...)})
			}
			continue
		}
		f := iv.Field(fi)
		switch {
		case s.Kind == incidentlib.Events:
			f.Set(reflect.ValueOf(events(c.Timeline.Events, l)))
		case s.Kind == incidentlib.Sources:
			var urls []string
			for _, x := range c.Sources {
				urls = append(urls, x.URL)
			}
			f.Set(reflect.ValueOf(urls))
		case s.Kind == incidentlib.Terms && f.Kind() == reflect.Map:
			if f.IsNil() {
				f.Set(reflect.MakeMap(f.Type()))
			}
			f.SetMapIndex(reflect.ValueOf(s.Key), reflect.ValueOf(s.Terms(c)))
		case s.Kind == incidentlib.Terms:
			if ids := s.Terms(c); len(ids) > 0 {
				f.SetString(ids[0])
			}
		case f.Kind() == reflect.String:
			f.SetString(strings.Join(s.In(c, v, l), "\n"))
		default:
			f.Set(reflect.ValueOf(append([]string{}, s.In(c, v, l)...)))
		}
	}
}

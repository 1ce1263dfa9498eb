package cli

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/spf13/cobra"

	"github.com/incidentlib/incidentlib/internal/search"
)

// tableFlags gives cmd a flag for each parameter the table takes on the
// command line for route, with the table's words, bounds and default, and
// returns the function that reads them back, with text as q, through the
// one parameter parser of every face: the same names, bounds and errors as
// the API's and MCP's, each error naming its flag.
func tableFlags(cmd *cobra.Command, route search.Route) func(text string) (search.Parsed, error) {
	values := map[string]*[]string{}
	f := cmd.Flags()
	for i := range search.Params {
		p := &search.Params[i]
		if !p.Takes(search.FaceCLI, route) || p.Flag == "" {
			continue
		}
		v := new([]string)
		values[p.Name] = v
		usage := p.Doc
		switch p.Kind {
		case search.KindTerms, search.KindAllOf, search.KindOrgs:
			f.StringSliceVar(v, p.Flag, nil, usage+" (repeatable)")
		default:
			if p.Kind == search.KindInt && p.Max > 0 {
				usage = fmt.Sprintf("%s (%d to %d)", usage, p.Min, p.Max)
			}
			typ := "string"
			if p.Kind == search.KindInt {
				typ = "int"
			}
			f.Var(lastValue{v, typ}, p.Flag, usage)
			if p.Default != "" {
				f.Lookup(p.Flag).DefValue = p.Default
			}
		}
	}
	return func(text string) (search.Parsed, error) {
		v := url.Values{}
		if text != "" {
			v.Set("q", text)
		}
		for name, vals := range values {
			if p := search.ParamNamed(name); p != nil && cmd.Flags().Changed(p.Flag) {
				v[name] = *vals
			}
		}
		parsed, probs := search.Parse(v, search.FaceCLI, route, 0)
		if len(probs) > 0 {
			msg := probs[0].Error()
			if p := search.ParamNamed(probs[0].Param); p != nil && p.Flag != "" {
				msg = "--" + p.Flag + ": " + msg
			}
			return parsed, &ExitError{2, errors.New(msg)}
		}
		return parsed, nil
	}
}

// lastValue is a flag that keeps the last value given, as a one-element
// list: the form the parameter parser reads.
type lastValue struct {
	v   *[]string
	typ string // what --help names the value
}

func (l lastValue) String() string {
	if l.v == nil || len(*l.v) == 0 {
		return ""
	}
	return (*l.v)[0]
}
func (l lastValue) Set(s string) error { *l.v = []string{s}; return nil }
func (l lastValue) Type() string       { return l.typ }

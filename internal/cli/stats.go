package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/view"
)

func statsCmd(e *env) *cobra.Command {
	var asJSON bool
	var params func(string) (search.Parsed, error)
	cmd := &cobra.Command{
		Annotations: readsDir(),
		Use:         "stats",
		Short:       "Count the cases by year, root cause, component, domain and organisation",
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := params("")
			if err != nil {
				return err
			}
			lang := p.Lang()
			c, err := e.loadCorpus()
			if err != nil {
				return err
			}
			s := view.ComputeStats(c.Cases, c.Vocab)
			if asJSON {
				return writeJSON(e.stdout, s, true)
			}
			w := e.stdout
			fmt.Fprintf(w, "cases: %d (reviewed: %d), organisations: %d, years %d–%d\n", s.Cases, s.Reviewed, s.Organisations, s.YearFrom, s.YearTo)
			section := func(title string, cs []view.Count, max int) {
				var parts []string
				for i, x := range cs {
					if max > 0 && i == max {
						parts = append(parts, fmt.Sprintf("… %d more", len(cs)-max))
						break
					}
					parts = append(parts, fmt.Sprintf("%s %d", x.Label.In(lang), x.Count))
				}
				fmt.Fprintf(w, "\n%s (%d):\n  %s\n", title, len(cs), strings.Join(parts, ", "))
			}
			section("by year", s.ByYear, 0)
			section("by root cause", s.ByRootCause, 0)
			section("by component", s.ByComponent, 25)
			section("by domain", s.ByDomain, 0)
			section("by severity", s.BySeverity, 0)
			section("by organisation", s.ByOrg, 0)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	params = tableFlags(cmd, search.RouteLists)
	return cmd
}

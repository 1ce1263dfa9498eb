// Command queries writes the load runs' request lists from the judged
// relevance queries and the unanswerable ones (Korean, English, pasted
// evidence), each in several forms clients send, so that the load is
// hundreds of distinct searches rather than a few repeated ones:
//
//	paths.txt  API search paths, one a line
//	mcp.txt    MCP tools/call bodies for search_incidents, one a line
//	cases.txt  API paths of every case, one a line
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/incidentlib/incidentlib/internal/corpus"
)

func main() {
	dir := flag.String("out", ".", "directory to write the lists to")
	flag.Parse()
	var judged []struct {
		Q string `yaml:"q"`
	}
	read("internal/search/testdata/relevance.yaml", &judged)
	var none []string
	read("internal/search/testdata/unanswerable.yaml", &none)
	var qs []string
	for _, j := range judged {
		qs = append(qs, j.Q)
	}
	qs = append(qs, none...)
	forms := []string{"", "&lang=en", "&lang=ko", "&limit=5", "&domain=kubernetes", "&sort=date"}
	var paths, bodies []string
	seen := map[string]bool{}
	for _, q := range qs {
		for _, f := range forms {
			p := "/api/cases?q=" + url.QueryEscape(q) + f
			if !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
		for _, extra := range []map[string]any{
			{"limit": 5}, {"limit": 10}, {"limit": 3}, {"limit": 5, "lang": "en"}, {"limit": 5, "lang": "ko"},
			{"limit": 5, "filters": map[string]any{"domain": []string{"kubernetes"}}},
		} {
			args := map[string]any{"query": q}
			for k, v := range extra {
				args[k] = v
			}
			b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
				"params": map[string]any{"name": "search_incidents", "arguments": args}})
			if err != nil {
				log.Fatal(err)
			}
			bodies = append(bodies, string(b))
		}
	}
	c, err := corpus.LoadEmbedded()
	if err != nil {
		log.Fatal(err)
	}
	var cases []string
	for _, k := range c.Cases {
		if !k.Private {
			cases = append(cases, "/api/cases/"+k.ID)
		}
	}
	write(filepath.Join(*dir, "paths.txt"), paths)
	write(filepath.Join(*dir, "mcp.txt"), bodies)
	write(filepath.Join(*dir, "cases.txt"), cases)
	fmt.Printf("%d search paths, %d MCP bodies, %d cases from %d queries\n", len(paths), len(bodies), len(cases), len(qs))
}

func read(path string, v any) {
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		log.Fatalf("%s: %v", path, err)
	}
}

func write(path string, lines []string) {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range lines {
		fmt.Fprintln(f, l)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

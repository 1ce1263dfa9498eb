// Command gen writes a synthetic corpus drawn from the real one
// (internal/synth) as JSON Lines files that `incidentlib import` loads:
// -times 10 makes nine synthetic cases for every real one, so that the
// database holds ten times the corpus once the real cases are seeded.
//
//	go run ./tools/scale/gen -times 10 -out /tmp/scale10
//
// writes /tmp/scale10/cases-000.jsonl, cases-001.jsonl, … of at most -per
// cases each (each file well under import's size bound).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/synth"
)

func main() {
	times := flag.Int("times", 10, "the corpus's size as a multiple of the real one (2 or more)")
	out := flag.String("out", ".", "folder to write the files to")
	per := flag.Int("per", 10000, "cases a file")
	seed := flag.Uint64("seed", 1, "seed of the generator (the same seed makes the same corpus)")
	flag.Parse()
	if *times < 2 || *per < 1 {
		log.Fatal("gen: -times must be 2 or more and -per 1 or more")
	}
	c, err := corpus.LoadEmbedded()
	if err != nil {
		log.Fatal(err)
	}
	n := (*times - 1) * len(c.Cases)
	g := synth.New(c.Cases, n, synth.Options{Seed: *seed})
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	var f *os.File
	var w *bufio.Writer
	enc := json.NewEncoder(nil)
	files, redrawn := 0, 0
	for i := 0; i < n; i++ {
		if i%*per == 0 {
			if f != nil {
				closeFile(f, w)
			}
			name := filepath.Join(*out, fmt.Sprintf("cases-%03d.jsonl", files))
			files++
			if f, err = os.Create(name); err != nil {
				log.Fatal(err)
			}
			w = bufio.NewWriterSize(f, 1<<20)
			enc = json.NewEncoder(w)
		}
		k := g.Next()
		// A case the drawn words made invalid (a phrase validate refuses,
		// a Korean text left without Hangul) is drawn again.
		for tries := 0; ; tries++ {
			y, err := corpus.MarshalCase(k)
			if err != nil {
				log.Fatal(err)
			}
			if _, _, probs := corpus.ParseCase("cases/"+k.ID+".yaml", y, c.Vocab); len(probs) == 0 {
				break
			} else if tries == 20 {
				log.Fatalf("case %s: %s", k.ID, probs[0].Msg)
			}
			redrawn++
			k = g.Redraw(k.ID)
		}
		k.Normalize()
		if err := enc.Encode(k); err != nil {
			log.Fatal(err)
		}
	}
	if f != nil {
		closeFile(f, w)
	}
	fmt.Printf("%d synthetic cases from %d real ones in %d files under %s (%d drawn again)\n", n, len(c.Cases), files, *out, redrawn)
}

func closeFile(f *os.File, w *bufio.Writer) {
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

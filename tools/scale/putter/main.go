// Command putter writes one case again and again through PUT
// /api/cases/{id}, one write at a time at a fixed pace, each with one more
// word in its English summary, over one kept-alive connection, and prints
// how many it made and their median time. tools/scale/run.sh runs it beside
// the searches to see whether writes slow them: a client that spawned a
// process per write (curl from a shell loop) cost the two processors of the
// machine more than the server's write did, and showed as the writes'
// effect.
//
//	putter -base http://127.0.0.1:8080 -id IL-0049 -for 20s -every 200ms
//	putter -base … -id … -n 20
//
// The token is INCIDENTLIB_TOKEN. With -token=false the writes carry none,
// and the server refuses each before any work: the same client and
// requests, without the write, as a control.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"time"
)

func main() {
	base := flag.String("base", "", "the server's address, http://host:port")
	id := flag.String("id", "", "the case to write")
	n := flag.Int("n", 0, "how many writes (0: as many as -for allows)")
	dur := flag.Duration("for", 0, "write for this long")
	every := flag.Duration("every", 200*time.Millisecond, "the pause between one write's answer and the next write")
	start := flag.Int("start", 1, "the number of the first write's word (scalewordN), so that runs in turn write new texts")
	token := flag.Bool("token", true, "send INCIDENTLIB_TOKEN (false: a control whose writes are refused)")
	flag.Parse()
	if err := run(*base, *id, *n, *dur, *every, *start, *token); err != nil {
		fmt.Fprintln(os.Stderr, "putter:", err)
		os.Exit(1)
	}
}

func run(base, id string, n int, dur, every time.Duration, start int, token bool) error {
	if base == "" || id == "" || (n <= 0 && dur <= 0) {
		return fmt.Errorf("give -base, -id and -n or -for")
	}
	tok := os.Getenv("INCIDENTLIB_TOKEN")
	if token && tok == "" {
		return fmt.Errorf("INCIDENTLIB_TOKEN is not set")
	}
	client := &http.Client{Timeout: 30 * time.Second}
	res, err := client.Get(base + "/api/cases/" + id)
	if err != nil {
		return err
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET the case: %d %v", res.StatusCode, err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		return err
	}
	delete(c, "url")
	summary, _ := c["summary"].(map[string]any)
	en, _ := summary["en"].(string)
	if en == "" {
		return fmt.Errorf("the case has no English summary")
	}
	// Every body is made before the first write, so that only the
	// writes themselves run beside the searches.
	count := n
	if count <= 0 {
		count = int(dur/every) + 2
	}
	bodies := make([][]byte, count)
	for i := range bodies {
		summary["en"] = fmt.Sprintf("%s scaleword%d", en, start+i)
		if bodies[i], err = json.Marshal(c); err != nil {
			return err
		}
	}
	want := http.StatusOK
	if !token {
		want = http.StatusUnauthorized
	}
	var took []time.Duration
	end := time.Now().Add(dur)
	for i := 0; i < len(bodies) && (dur <= 0 || time.Now().Before(end)); i++ {
		req, err := http.NewRequest(http.MethodPut, base+"/api/cases/"+id, bytes.NewReader(bodies[i]))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		if token {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		t0 := time.Now()
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		took = append(took, time.Since(t0))
		if res.StatusCode != want {
			return fmt.Errorf("write %d answered %d, want %d", i+1, res.StatusCode, want)
		}
		time.Sleep(every)
	}
	if len(took) == 0 {
		return fmt.Errorf("no write was made in %v", dur)
	}
	slices.Sort(took)
	fmt.Printf("%d PUTs, median %.1f ms\n", len(took), float64(took[(len(took)-1)/2].Microseconds())/1000)
	return nil
}

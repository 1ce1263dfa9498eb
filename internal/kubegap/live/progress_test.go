package live

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
)

// TestProgress: the progress line overwrites itself and is cleared at the
// end; with no writer (stderr is not a terminal) nothing is drawn.
func TestProgress(t *testing.T) {
	var n atomic.Int64
	n.Store(7)
	var buf bytes.Buffer
	p := &progress{w: &buf, n: &n}
	p.show("listing nodes (page 1)")
	p.done()
	out := buf.String()
	if !strings.HasPrefix(out, "\r\033[Kkubegap: listing nodes (page 1) · 7 requests") || !strings.HasSuffix(out, "\r\033[K") || strings.Contains(out, "\n") {
		t.Errorf("progress output %q", out)
	}
	var none *progress
	none.show("x") // must not panic
	(&progress{n: &n}).show("x")
}

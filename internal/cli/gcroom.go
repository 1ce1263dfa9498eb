package cli

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// roomKeeper keeps GOGC at gcPercentFor of the live heap as the live heap
// changes after start: the caches a server fills as it answers (the
// analysed snippet fields, up to 24 MB) and the cases written grow it, and
// a GOGC set once at start would give that growth its multiple of room
// too, not the fixed room the setting stands for.
type roomKeeper struct {
	pct    int
	sample [1]metrics.Sample
}

func newRoomKeeper(pct int) *roomKeeper {
	k := &roomKeeper{pct: pct}
	k.sample[0].Name = "/gc/heap/live:bytes" // as the last collection marked it
	return k
}

// step reads the live heap the last collection left and sets GOGC anew
// when the room it gives would be off by more than a sixteenth (so that
// small changes of the live heap do not move it back and forth). It
// returns the GOGC in force.
func (k *roomKeeper) step() int {
	metrics.Read(k.sample[:])
	if k.sample[0].Value.Kind() != metrics.KindUint64 {
		return k.pct
	}
	pct := gcPercentFor(k.sample[0].Value.Uint64())
	if d := pct - k.pct; d*16 > k.pct || -d*16 > k.pct {
		debug.SetGCPercent(pct)
		k.pct = pct
	}
	return k.pct
}

// run steps every period until ctx ends. A step reads one runtime metric
// (no stop of the world), so a period of a few seconds costs nothing.
func (k *roomKeeper) run(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			k.step()
		}
	}
}

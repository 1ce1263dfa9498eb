package corrections

import (
	"context"
	"errors"
	"testing"

	"github.com/incidentlib/incidentlib"
)

// fake is a Dialect whose answers the test scripts: CloseOpen answers from
// closes in turn, Status from statuses in turn ("" for no correction).
type fake struct {
	closes   []bool
	statuses []string
	calls    int
}

func (f *fake) Insert(context.Context, *incidentlib.Correction) (int64, error) { return 1, nil }
func (f *fake) List(context.Context, string, int) ([]incidentlib.Correction, error) {
	return nil, nil
}

func (f *fake) CloseOpen(context.Context, int64, string, string) (bool, error) {
	f.calls++
	done := f.closes[0]
	f.closes = f.closes[1:]
	return done, nil
}

func (f *fake) Status(context.Context, int64) (string, bool, error) {
	s := f.statuses[0]
	f.statuses = f.statuses[1:]
	return s, s != "", nil
}

// TestCloseTellsWhyNothingChanged: when the update changes nothing, the
// status read after it says not found or already closed; a correction that
// reads open then (added with that id in between) is closed on a second try.
func TestCloseTellsWhyNothingChanged(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		closes   []bool
		statuses []string
		want     error
		calls    int
	}{
		{"closed at once", []bool{true}, nil, nil, 1},
		{"no such correction", []bool{false}, []string{""}, incidentlib.ErrNotFound, 1},
		{"already closed", []bool{false}, []string{incidentlib.CorrectionDismissed}, incidentlib.ErrConflict, 1},
		{"added in between", []bool{false, true}, []string{incidentlib.CorrectionOpen}, nil, 2},
		{"never settles", []bool{false, false, false}, []string{"open", "open", "open"}, incidentlib.ErrConflict, 3},
	} {
		f := &fake{closes: tc.closes, statuses: tc.statuses}
		err := Queue{SQL: f}.Close(ctx, 7, incidentlib.CorrectionResolved, "")
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if f.calls != tc.calls {
			t.Errorf("%s: %d updates tried, want %d", tc.name, f.calls, tc.calls)
		}
	}
	if err := (Queue{SQL: &fake{}}).Close(ctx, 7, incidentlib.CorrectionOpen, ""); !errors.Is(err, incidentlib.ErrInvalid) {
		t.Errorf("closing as open: %v, want invalid", err)
	}
}

// TestListNeverNil: an empty listing is an empty list, not nil, so that it
// encodes as [] rather than null.
func TestListNeverNil(t *testing.T) {
	got, err := Queue{SQL: &fake{}}.List(context.Background(), "", 0)
	if err != nil || got == nil {
		t.Fatalf("%#v, %v", got, err)
	}
}

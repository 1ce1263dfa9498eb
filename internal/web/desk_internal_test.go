package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/incidentlib/incidentlib"
)

type noCorrections struct{}

func (noCorrections) AddCorrection(context.Context, *incidentlib.Correction) (int64, error) {
	return 0, nil
}
func (noCorrections) Corrections(context.Context, string, int) ([]incidentlib.Correction, error) {
	return nil, nil
}
func (noCorrections) CloseCorrection(context.Context, int64, string, string) error { return nil }

// TestDeskSessionAndFormTokensExpire: a session lasts sessionLife and a form
// token formMaxAge, by the desk's clock; a token of one purpose does not
// serve another, and another server's key makes nothing valid.
func TestDeskSessionAndFormTokensExpire(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	k := newDesk(&Desk{Corrections: noCorrections{}, Token: "secret", Now: func() time.Time { return now }})
	req := func(v string) *http.Request {
		r := httptest.NewRequest("GET", "/desk", nil)
		r.AddCookie(&http.Cookie{Name: deskCookie, Value: v})
		return r
	}
	sess := k.newSession()
	if _, ok := k.session(req(sess)); !ok {
		t.Fatal("a fresh session is refused")
	}
	tok := k.formToken("correct:IL-0049")
	if _, err := k.checkForm(tok, "correct:IL-0049"); err != nil {
		t.Fatalf("a fresh form token is refused: %v", err)
	}
	if _, err := k.checkForm(tok, "correct:IL-0461"); err == nil {
		t.Error("a form token serves another form")
	}
	other := newDesk(&Desk{Corrections: noCorrections{}, Token: "another", Now: func() time.Time { return now }})
	if _, ok := other.session(req(sess)); ok {
		t.Error("a session made with another token is accepted")
	}
	now = now.Add(formMaxAge + time.Minute)
	if _, err := k.checkForm(tok, "correct:IL-0049"); err != errExpired {
		t.Errorf("a form token past its age: %v, want expired", err)
	}
	now = now.Add(sessionLife)
	if _, ok := k.session(req(sess)); ok {
		t.Error("an expired session is accepted")
	}
}

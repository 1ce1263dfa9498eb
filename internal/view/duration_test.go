package view

import "testing"

func TestDuration(t *testing.T) {
	s := func(v string) *string { return &v }
	for in, want := range map[string]string{"26m": "26m", "2h30m": "2h 30m", "4m0s": "4m", "90s": "1m 30s", "49h": "2d 1h", "weird": "weird"} {
		if got := Duration(s(in), "en"); got != want {
			t.Errorf("Duration(%q, en) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"4m": "4분", "2h30m": "2시간 30분", "90s": "1분 30초", "49h": "2일 1시간", "0s": "0초", "weird": "weird"} {
		if got := Duration(s(in), "ko"); got != want {
			t.Errorf("Duration(%q, ko) = %q, want %q", in, got, want)
		}
	}
	if got := Duration(nil, "en"); got != "–" {
		t.Errorf("Duration(nil) = %q", got)
	}
}

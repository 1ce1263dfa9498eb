package exitcode

import "testing"

func TestHelp(t *testing.T) {
	got := Help([]Code{{0, "success"}, {2, "user error: bad flags,\nor an unknown command"}})
	want := "Exit codes:\n  0  success\n  2  user error: bad flags,\n     or an unknown command"
	if got != want {
		t.Errorf("Help =\n%s\nwant\n%s", got, want)
	}
}

package lazyre_test

import (
	"testing"

	"github.com/incidentlib/incidentlib/internal/lazyre"
)

func TestNew(t *testing.T) {
	re := lazyre.New(`^a+b$`)
	first, second := re(), re()
	if first != second {
		t.Error("two calls compiled the expression twice")
	}
	if !re().MatchString("aab") || re().MatchString("ab c") {
		t.Error("the expression does not match as written")
	}
	bad := lazyre.New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("a bad pattern did not panic on first use")
		}
	}()
	bad()
}

package ledger

import "testing"

func TestBalance(t *testing.T) {
	got := Balance([]Rec{{Value: 5}, {Value: 7}})
	if got != 12 {
		t.Errorf("Balance() = %d, want 12", got)
	}
}

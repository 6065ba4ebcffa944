package oracle

import "testing"

func TestDiffDumps(t *testing.T) {
	ours := `[{"partition":{"key":["a"],"position":0},"rows":[{"type":"row","cells":[{"name":"v","value":1}]}]},
	         {"partition":{"key":["b"],"position":20},"rows":[]}]`
	theirs := `[{"table kind":"REGULAR","partition":{"key":["a"],"position":0},"rows":[{"type":"row","position":15,"cells":[{"name":"v","value":1}]}]},
	            {"table kind":"REGULAR","partition":{"key":["b"],"position":20},"rows":[]}]`
	if d, err := DiffDumps([]byte(ours), []byte(theirs)); err != nil || d != "" {
		t.Fatalf("equal dumps: %q, %v", d, err)
	}
	swapped := `[{"partition":{"key":["b"],"position":20},"rows":[]},{"partition":{"key":["a"],"position":0},"rows":[{"type":"row","cells":[{"name":"v","value":1}]}]}]`
	if d, _ := DiffDumps([]byte(swapped), []byte(theirs)); d == "" {
		t.Error("partitions in another order compare equal")
	}
	if d, _ := DiffDumps([]byte(`[{"partition":{"key":["a"],"position":0},"rows":[]}]`), []byte(theirs)); d == "" {
		t.Error("a missing partition compares equal")
	}
	changed := `[{"partition":{"key":["a"],"position":0},"rows":[{"type":"row","cells":[{"name":"v","value":2}]}]},{"partition":{"key":["b"],"position":20},"rows":[]}]`
	if d, _ := DiffDumps([]byte(changed), []byte(theirs)); d == "" {
		t.Error("a changed value compares equal")
	}
}

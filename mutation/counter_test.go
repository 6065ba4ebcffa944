package mutation

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
)

func mustID(t testing.TB, s string) [16]byte {
	t.Helper()
	var id [16]byte
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 16 {
		t.Fatalf("bad id %q", s)
	}
	copy(id[:], b)
	return id
}

// realCounterContexts extracts the counter contexts of the counters
// sstable's three cells: each is a 36-byte value (vint length 0x24) with a
// one-global-shard header 0001 8000.
func realCounterContexts(t *testing.T) [][]byte {
	data, err := os.ReadFile(testdata.Path(t, "cassandra", "3.x", "uncompressed", "counters", "mc-1-big-Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	marker := []byte{0x24, 0x00, 0x01, 0x80, 0x00}
	for off := 0; ; {
		i := bytes.Index(data[off:], marker)
		if i < 0 {
			break
		}
		start := off + i + 1
		out = append(out, data[start:start+36])
		off = start + 36
	}
	if len(out) != 3 {
		t.Fatalf("found %d counter contexts in the counters Data.db, want 3", len(out))
	}
	return out
}

func TestCounterContextRealFile(t *testing.T) {
	ctxs := realCounterContexts(t)
	// expected.json: counts 3, 2, 6 from one global shard of node
	// 59b82720-99b0-4033-885c-e94d62106a35.
	wantCounts := []int64{3, 2, 6}
	wantClocks := []int64{1528799884268000, 1528799884274000, 1528799885107000}
	id := mustID(t, "59b8272099b04033885ce94d62106a35")
	for i, v := range ctxs {
		shards, err := ParseCounterContext(v)
		if err != nil {
			t.Fatalf("context %d: %v", i, err)
		}
		want := []CounterShard{{ID: id, Clock: wantClocks[i], Count: wantCounts[i], Kind: CounterGlobal}}
		if len(shards) != 1 || shards[0] != want[0] {
			t.Fatalf("context %d: got %+v, want %+v", i, shards, want)
		}
		total, err := CounterTotal(v)
		if err != nil || total != wantCounts[i] {
			t.Fatalf("context %d: total %d, %v", i, total, err)
		}
		legacy, err := HasLegacyShards(v)
		if err != nil || legacy {
			t.Fatalf("context %d: legacy %v, %v", i, legacy, err)
		}
		back, err := AppendCounterContext(nil, shards)
		if err != nil || !bytes.Equal(back, v) {
			t.Fatalf("context %d: re-encoded %x, want %x (%v)", i, back, v, err)
		}
		if err := ValidateCounterContext(v); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCounterContextEncoding(t *testing.T) {
	a := mustID(t, "19478feb8e7c47299a789b476552f13d")
	b := mustID(t, "bbba589778b64cdc9a0d0ea9e9a3b833")
	c := mustID(t, "e079a6feeb794bdf97cac87a2c387d5c")
	shards := []CounterShard{
		{ID: a, Clock: 1, Count: 5, Kind: CounterGlobal},
		{ID: b, Clock: 7, Count: -4, Kind: CounterLocal},
		{ID: c, Clock: 1, Count: 9, Kind: CounterRemote},
	}
	v, err := AppendCounterContext([]byte{0xAA}, shards)
	if err != nil {
		t.Fatal(err)
	}
	v = v[1:]
	// header: 2 entries, global shard 0 (0x8000), local shard 1 (0x0001).
	if got := hex.EncodeToString(v[:6]); got != "000280000001" {
		t.Fatalf("header %s", got)
	}
	if len(v) != 6+3*32 {
		t.Fatalf("length %d", len(v))
	}
	got, err := ParseCounterContext(v)
	if err != nil {
		t.Fatal(err)
	}
	for i := range shards {
		if got[i] != shards[i] {
			t.Fatalf("shard %d: %+v want %+v", i, got[i], shards[i])
		}
	}
	if total, _ := CounterTotal(v); total != 10 {
		t.Fatalf("total %d", total)
	}
	if legacy, _ := HasLegacyShards(v); !legacy {
		t.Fatal("legacy shards not detected")
	}
	// Empty context.
	empty, _ := AppendCounterContext(nil, nil)
	if !bytes.Equal(empty, []byte{0, 0}) {
		t.Fatalf("empty context %x", empty)
	}
	if s, err := ParseCounterContext(empty); err != nil || len(s) != 0 {
		t.Fatalf("empty: %v %v", s, err)
	}
	// Unsorted ids are rejected.
	if _, err := AppendCounterContext(nil, []CounterShard{shards[1], shards[0]}); !errors.Is(err, ErrBadCounterContext) {
		t.Fatalf("unsorted: %v", err)
	}
}

func TestCounterContextMalformed(t *testing.T) {
	good, _ := AppendCounterContext(nil, []CounterShard{{Clock: 1, Count: 1}})
	cases := map[string][]byte{
		"empty":          {},
		"one byte":       {0},
		"header too big": {0, 5, 0x80, 0},
		"partial shard":  good[:len(good)-1],
		"dangling entry": append([]byte{0, 2, 0x80, 0, 0x80, 1}, good[4:]...),
	}
	for name, v := range cases {
		if _, err := ParseCounterContext(v); !errors.Is(err, ErrBadCounterContext) {
			t.Errorf("%s: ParseCounterContext err = %v", name, err)
		}
		if err := ValidateCounterContext(v); !errors.Is(err, ErrBadCounterContext) {
			t.Errorf("%s: ValidateCounterContext err = %v", name, err)
		}
		if name != "dangling entry" {
			if _, err := CounterTotal(v); !errors.Is(err, ErrBadCounterContext) {
				t.Errorf("%s: CounterTotal err = %v", name, err)
			}
		}
		if _, err := MergeCounterContexts(v, good); err == nil {
			t.Errorf("%s: merge accepted it", name)
		}
	}
	// Negative header count (local shards marked to be cleared) is read
	// as its absolute value.
	marked := append([]byte(nil), good...)
	binary.BigEndian.PutUint16(marked, uint16(0xFFFF)) // -1
	if s, err := ParseCounterContext(marked); err != nil || len(s) != 1 || s[0].Kind != CounterGlobal {
		t.Fatalf("marked context: %v %v", s, err)
	}
}

func ctx(t *testing.T, shards ...CounterShard) []byte {
	t.Helper()
	v, err := AppendCounterContext(nil, shards)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMergeCounterContexts(t *testing.T) {
	id := func(b byte) [16]byte { return [16]byte{15: b} }
	g := func(b byte, clock, count int64) CounterShard {
		return CounterShard{ID: id(b), Clock: clock, Count: count, Kind: CounterGlobal}
	}
	l := func(b byte, clock, count int64) CounterShard {
		return CounterShard{ID: id(b), Clock: clock, Count: count, Kind: CounterLocal}
	}
	r := func(b byte, clock, count int64) CounterShard {
		return CounterShard{ID: id(b), Clock: clock, Count: count, Kind: CounterRemote}
	}
	cases := []struct {
		name       string
		a, b, want []CounterShard
		which      int
	}{
		{"higher clock wins per id", []CounterShard{g(1, 1, 5), g(2, 9, 1)}, []CounterShard{g(1, 2, 7), g(2, 3, 3)},
			[]CounterShard{g(1, 2, 7), g(2, 9, 1)}, mergedNew},
		{"disjoint ids union", []CounterShard{g(1, 1, 5)}, []CounterShard{g(3, 1, 2)},
			[]CounterShard{g(1, 1, 5), g(3, 1, 2)}, mergedNew},
		{"left superset returned as is", []CounterShard{g(1, 4, 5), g(3, 1, 2)}, []CounterShard{g(1, 2, 1)},
			[]CounterShard{g(1, 4, 5), g(3, 1, 2)}, mergedLeft},
		{"right superset", []CounterShard{g(1, 2, 1)}, []CounterShard{g(1, 4, 5), g(3, 1, 2)},
			[]CounterShard{g(1, 4, 5), g(3, 1, 2)}, mergedRight},
		{"equal clocks: higher count", []CounterShard{g(1, 4, 5)}, []CounterShard{g(1, 4, 6)},
			[]CounterShard{g(1, 4, 6)}, mergedRight},
		{"global beats local", []CounterShard{l(1, 9, 9)}, []CounterShard{g(1, 1, 1)},
			[]CounterShard{g(1, 1, 1)}, mergedRight},
		{"two locals add up", []CounterShard{l(1, 2, 3)}, []CounterShard{l(1, 5, 7)},
			[]CounterShard{l(1, 7, 10)}, mergedNew},
		{"local beats remote", []CounterShard{r(1, 9, 9), g(2, 1, 1)}, []CounterShard{l(1, 1, 1)},
			[]CounterShard{l(1, 1, 1), g(2, 1, 1)}, mergedNew},
		{"remote: negative clock wins", []CounterShard{r(1, -3, 0)}, []CounterShard{r(1, 8, 4)},
			[]CounterShard{r(1, -3, 0)}, mergedLeft},
	}
	for _, c := range cases {
		a, b := ctx(t, c.a...), ctx(t, c.b...)
		got, which, err := mergeCounterContexts(a, b)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if want := ctx(t, c.want...); !bytes.Equal(got, want) {
			t.Errorf("%s: got %x want %x", c.name, got, want)
		}
		if which != c.which {
			t.Errorf("%s: returned input %d, want %d", c.name, which, c.which)
		}
	}
}

func FuzzParseCounterContext(f *testing.F) {
	f.Add([]byte{0, 0})
	f.Add([]byte{0, 1, 0x80, 0})
	if dir := testdata.Root(); dir != "" {
		if data, err := os.ReadFile(dir + "/cassandra/3.x/uncompressed/counters/mc-1-big-Data.db"); err == nil {
			if i := bytes.Index(data, []byte{0x24, 0, 1, 0x80, 0}); i >= 0 && i+37 <= len(data) {
				f.Add(data[i+1 : i+37])
			}
		}
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		shards, err := ParseCounterContext(v)
		if err != nil {
			return
		}
		if _, err := CounterTotal(v); err != nil {
			t.Fatalf("parsed but total failed: %v", err)
		}
		if _, err := HasLegacyShards(v); err != nil {
			t.Fatalf("parsed but legacy check failed: %v", err)
		}
		merged, err := MergeCounterContexts(v, v)
		if ValidateCounterContext(v) == nil {
			if err != nil {
				t.Fatalf("self merge: %v", err)
			}
			if got, err := ParseCounterContext(merged); err != nil || len(got) != len(shards) {
				t.Fatalf("self merge changed shard count: %v %v", got, err)
			}
			back, err := AppendCounterContext(nil, shards)
			if err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			if again, err := ParseCounterContext(back); err != nil || len(again) != len(shards) {
				t.Fatalf("re-parse: %v", err)
			}
		}
	})
}

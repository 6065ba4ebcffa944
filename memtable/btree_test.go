package memtable

import (
	"encoding/binary"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
)

func TestBtreeOrderAndLookup(t *testing.T) {
	for _, n := range []int{0, 1, 2, maxItems, maxItems + 1, 1000, 20000} {
		var tr btree
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		var want []*mutation.Partition
		seen := map[string]bool{}
		for len(want) < n {
			k := make([]byte, 4)
			binary.BigEndian.PutUint32(k, rng.Uint32()%uint32(4*n+1))
			if seen[string(k)] {
				if tr.get(dht.Murmur3.Token(k), k) == nil {
					t.Fatalf("n=%d: inserted key %x not found", n, k)
				}
				// find (which splits full nodes on its way) finds it too.
				if e, _, _ := tr.find(dht.Murmur3.Token(k), k); e == nil || string(e.p.Key) != string(k) {
					t.Fatalf("n=%d: find did not find inserted key %x", n, k)
				}
				continue
			}
			seen[string(k)] = true
			e := &entry{p: mutation.Partition{Key: k, Token: dht.Murmur3.Token(k)}}
			if tr.get(e.p.Token, k) != nil {
				t.Fatalf("n=%d: key %x found before insertion", n, k)
			}
			if len(want)%2 == 0 {
				tr.insert(e)
			} else {
				found, leaf, at := tr.find(e.p.Token, k)
				if found != nil {
					t.Fatalf("n=%d: find found key %x before insertion", n, k)
				}
				tr.insertAt(leaf, at, e)
			}
			want = append(want, &e.p)
		}
		sort.Slice(want, func(i, j int) bool {
			return dht.ComparePartitions(want[i].Token, want[i].Key, want[j].Token, want[j].Key) < 0
		})
		var got []*mutation.Partition
		tr.ascend(func(e *entry) bool { got = append(got, &e.p); return true })
		if len(got) != len(want) || tr.length != n {
			t.Fatalf("n=%d: got %d partitions (length %d)", n, len(got), tr.length)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("n=%d: position %d holds %x, want %x", n, i, got[i].Key, want[i].Key)
			}
		}
		entries := tr.appendEntries([]*entry{nil})
		if len(entries) != n+1 {
			t.Fatalf("n=%d: appendEntries gave %d entries after the first", n, len(entries)-1)
		}
		for i, e := range entries[1:] {
			if &e.p != want[i] {
				t.Fatalf("n=%d: appendEntries position %d holds %x, want %x", n, i, e.p.Key, want[i].Key)
			}
		}
	}
}

func TestBtreeEqualTokensOrderByKey(t *testing.T) {
	var tr btree
	keys := [][]byte{{3}, {1}, {2}, {1, 0}, {}}
	for i, k := range keys {
		e := &entry{p: mutation.Partition{Key: k, Token: dht.Murmur3Token(42)}}
		if i%2 == 0 {
			tr.insert(e)
			continue
		}
		found, leaf, at := tr.find(e.p.Token, k)
		if found != nil {
			t.Fatalf("find found %x before insertion", k)
		}
		tr.insertAt(leaf, at, e)
	}
	var got []string
	tr.ascend(func(e *entry) bool { got = append(got, string(e.p.Key)); return true })
	want := []string{"", "\x01", "\x01\x00", "\x02", "\x03"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %q, want %q", got, want)
		}
	}
}

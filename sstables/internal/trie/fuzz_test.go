package trie

import (
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
)

// seedFiles adds the real BTI index files of the shared corpus (when
// present) with their roots (found from the Partitions.db footer; Rows.db
// files are seeded with root = last node guess).
func seedFiles(f *testing.F) {
	dir := testdata.Root()
	globs := []string{"cassandra-legacy/da/*/*-Partitions.db", "cassandra-legacy/da/*/*-Rows.db", "scylla-bti/*/*-Partitions.db", "scylla-bti/*/*-Rows.db"}
	for _, g := range globs {
		ms, _ := filepath.Glob(filepath.Join(dir, g))
		for _, m := range ms {
			b, err := os.ReadFile(m)
			if err != nil || len(b) == 0 {
				continue
			}
			for _, r := range []int64{0, int64(len(b)) / 2, int64(len(b)) - 1} {
				f.Add(b, r, []byte{0x40, 0x30})
			}
			if len(b) >= 24 {
				var r int64
				for _, c := range b[len(b)-8:] {
					r = r<<8 | int64(c)
				}
				f.Add(b, r, []byte{0x40, 0x31, 0x00})
			}
		}
	}
	r := rand.New(rand.NewSource(9))
	es := genKeys(r, 300)
	var keys [][]byte
	var fl []uint8
	var pl [][]byte
	for _, e := range es {
		keys, fl, pl = append(keys, e.key), append(fl, e.flags), append(pl, e.payload)
	}
	if tb, troot, err := Bytes(0, keys, fl, pl); err == nil {
		f.Add(tb, troot, es[7].key)
	}
}

func FuzzTrieWalker(f *testing.F) {
	seedFiles(f)
	f.Fuzz(func(t *testing.T, data []byte, root int64, key []byte) {
		tr := New(data)
		check := func(err error) {
			if err == nil || errors.Is(err, ErrStop) {
				return
			}
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("error is not a *trie.Error: %v", err)
			}
			if te.Offset != root && (te.Offset < 0 || te.Offset >= int64(len(data))) {
				t.Fatalf("error offset %d outside the data (%d bytes): %v", te.Offset, len(data), err)
			}
		}
		_, err := tr.Verify(root, func(flags uint8, b []byte) (int, error) { return int(flags) % 3, nil })
		check(err)
		steps := 0
		err = tr.Walk(root, func(k []byte, n *Node) error {
			steps++
			if steps > len(data)+1 {
				t.Fatalf("walk visited %d payload nodes in %d bytes", steps, len(data))
			}
			return nil
		})
		check(err)
		_, _, err = tr.Follow(root, key)
		check(err)
		_, _, err = tr.Exact(root, key)
		check(err)
		_, _, err = tr.Floor(root, key)
		check(err)
		_, _, err = tr.Ceiling(root, key)
		check(err)
	})
}

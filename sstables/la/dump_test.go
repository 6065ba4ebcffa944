package la

import (
	"bytes"
	"io"
	"testing"

	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// dumpSSTable returns the canonical JSON of an SSTable read with table
// (nil: inferred).
func dumpSSTable(t testing.TB, d sstables.Descriptor, table *schema.Table) (string, *Reader) {
	t.Helper()
	r, err := Open(d, table, sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return dumpReader(t, r), r
}

func dumpReader(t testing.TB, r *Reader) string {
	t.Helper()
	var buf bytes.Buffer
	enc := jsondump.NewEncoder(&buf, r.Table(), jsondump.EncodeOptions{Format: jsondump.FormatCanonical})
	s, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for {
		p, err := s.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		whole, err := readWholePartition(s.(*scanner), p)
		if err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(whole, s.Position()); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

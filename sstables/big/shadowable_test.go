package big

import (
	"bytes"
	"strings"
	"testing"

	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// TestRegularAndScyllaShadowableDeletion: a row may carry both a regular
// and a ScyllaDB shadowable deletion (ScyllaDB's row_tombstone). Written
// with ScyllaDB's encoding it keeps both — HAS_DELETION with the regular
// one, extended flag 0x80 with the shadowable one — and reads both back;
// a shadowable deletion the regular one supersedes is not written, as
// ScyllaDB writes 0x80 only when is_shadowable(). Cassandra's encoding,
// which holds one row deletion, refuses the row instead of dropping the
// regular deletion.
func TestRegularAndScyllaShadowableDeletion(t *testing.T) {
	var c mcWriteCase
	for _, mc := range mcWriteCases(t) {
		if mc.name == "shadowable_deletion" {
			c = mc
		}
	}
	if c.name == "" {
		t.Fatal("no shadowable_deletion case")
	}
	table := c.table(t)
	var lastDump []byte
	write := func(scylla bool, regular mutation.DeletionTime) (*mutation.Row, error) {
		parts := c.partitions(t, table)
		var row *mutation.Row
		for _, p := range parts {
			for i := range p.Rows {
				if !p.Rows[i].ShadowableDeletion.IsLive() {
					p.Rows[i].Deletion = regular
					row = &p.Rows[i]
				}
			}
		}
		if row == nil {
			t.Fatal("no row with a shadowable deletion")
		}
		opts := c.writerOptions(table, parts, t.TempDir())
		opts.Stats = sstables.DataStats{}
		opts.ScyllaShadowable = scylla
		w, err := NewWriter(vmc, table, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		for _, p := range parts {
			if err := w.Append(p); err != nil {
				return nil, err
			}
		}
		res, err := w.Finish()
		if err != nil {
			return nil, err
		}
		r, err := Open(res.Descriptor, table, sstables.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := r.Verify(); err != nil {
			t.Fatal(err)
		}
		lastDump = dumpCanonical(t, r)
		for _, p := range parts {
			got, err := r.Get(p.Key)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got.Rows {
				if got.Rows[i].Deletion != mutation.Live || !got.Rows[i].ShadowableDeletion.IsLive() {
					return &got.Rows[i], nil
				}
			}
		}
		t.Fatal("the row with deletions is gone")
		return nil, nil
	}
	parts := c.partitions(t, table)
	var shadow mutation.DeletionTime
	for _, p := range parts {
		for _, r := range p.Rows {
			if !r.ShadowableDeletion.IsLive() {
				shadow = r.ShadowableDeletion
			}
		}
	}
	older := mutation.DeletionTime{MarkedForDeleteAt: shadow.MarkedForDeleteAt - 10, LocalDeletionTime: shadow.LocalDeletionTime - 1}
	newer := mutation.DeletionTime{MarkedForDeleteAt: shadow.MarkedForDeleteAt + 10, LocalDeletionTime: shadow.LocalDeletionTime + 1}

	got, err := write(true, older)
	if err != nil {
		t.Fatal(err)
	}
	if got.Deletion != older || got.DeletionShadowable || got.ShadowableDeletion != shadow {
		t.Fatalf("both deletions, ScyllaDB's encoding: read back %+v / %+v, want %+v / %+v", got.Deletion, got.ShadowableDeletion, older, shadow)
	}
	// The dump shows both, and reads back as both.
	if !bytes.Contains(lastDump, []byte(`"deletion_info"`)) || !bytes.Contains(lastDump, []byte(`"shadowable_deletion_info"`)) {
		t.Fatalf("the dump lost a deletion:\n%s", lastDump)
	}
	back, _, err := jsondump.DecodeAll(bytes.NewReader(lastDump), table, jsondump.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range back {
		for _, r := range p.Rows {
			if r.Deletion == older && r.ShadowableDeletion == shadow {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("the dump read back without both deletions:\n%s", lastDump)
	}
	got, err = write(true, newer)
	if err != nil {
		t.Fatal(err)
	}
	if got.Deletion != newer || !got.ShadowableDeletion.IsLive() {
		t.Fatalf("a superseded shadowable deletion: read back %+v / %+v, want only %+v", got.Deletion, got.ShadowableDeletion, newer)
	}
	if _, err := write(false, older); err == nil || !strings.Contains(err.Error(), "ScyllaShadowable") {
		t.Fatalf("both deletions, Cassandra's encoding: %v, want an error", err)
	}
	got, err = write(false, mutation.Live)
	if err != nil {
		t.Fatal(err)
	}
	if got.Deletion != shadow || !got.DeletionShadowable {
		t.Fatalf("a shadowable deletion alone, Cassandra's encoding: %+v, want it as the shadowable row deletion", got)
	}
}

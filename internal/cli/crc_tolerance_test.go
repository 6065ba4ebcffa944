package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables"
)

// TestDumpReadsUncompressedCRCMismatch: Cassandra's and ScyllaDB's read
// paths never consult CRC.db (ScyllaDB checksums uncompressed data only
// under integrity_check), so a chunk whose CRC.db checksum does not match
// is served. castable dump reads it with a WARN line naming Data.db and the
// chunk's offset and prints what the undamaged SSTable prints; verify
// fails it; the library's readers still refuse it unless
// ReaderOptions.WarnUncompressedCRC says otherwise (scrub and convert must
// not pass damaged bytes on). Shown on ScyllaDB's
// 3.x/uncompressed/simple with one CRC.db checksum changed.
func TestDumpReadsUncompressedCRCMismatch(t *testing.T) {
	src := testdata.Path(t, "cassandra", "3.x", "uncompressed", "simple")
	dir := copyPrefix(t, src, "mc-1-big-")
	prefix := filepath.Join(dir, "mc-1-big-")
	var want bytes.Buffer
	if err := Dump(&Env{Stdout: &want, Stderr: io.Discard}, DumpOptions{SSTable: prefix + "Data.db", Canonical: true}); err != nil {
		t.Fatal(err)
	}
	crc, err := os.ReadFile(prefix + "CRC.db")
	if err != nil || len(crc) < 8 {
		t.Fatalf("CRC.db: %d bytes, %v", len(crc), err)
	}
	crc[7] ^= 0x01
	if err := os.WriteFile(prefix+"CRC.db", crc, 0o644); err != nil {
		t.Fatal(err)
	}

	var got, errs bytes.Buffer
	if err := Dump(&Env{Stdout: &got, Stderr: &errs}, DumpOptions{SSTable: prefix + "Data.db", Canonical: true}); err != nil {
		t.Fatalf("dump with a CRC.db mismatch: %v\n%s", err, errs.String())
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatal("dump with a CRC.db mismatch differs from the undamaged dump")
	}
	if w := "WARN " + prefix + "Data.db: Data.db at offset 0: chunk 0 checksum mismatch"; !strings.Contains(errs.String(), w) {
		t.Fatalf("dump's stderr has no %q:\n%s", w, errs.String())
	}
	errs.Reset()
	if err := Verify(&Env{Stdout: io.Discard, Stderr: &errs, Quiet: true}, VerifyOptions{SSTables: []string{dir}}); err == nil || !strings.Contains(errs.String(), "checksum mismatch") {
		t.Fatalf("verify with a CRC.db mismatch: %v\n%s", err, errs.String())
	}

	desc, _, _, err := sstables.ParseDescriptor(prefix + "Data.db")
	if err != nil {
		t.Fatal(err)
	}
	r, err := sstables.OpenAny(desc, nil, sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sc, err := r.Scan()
	if err == nil {
		defer sc.Close()
		_, err = sc.NextPartition()
	}
	if !errors.Is(err, sstables.ErrCorrupt) {
		t.Fatalf("a library scan by default: %v, want a CorruptionError", err)
	}
}

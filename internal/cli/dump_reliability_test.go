package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables"
)

// TestDumpDamagedValueIsCorruption: a flipped byte inside a text value of
// an SSTable without per-chunk checksums (mc-write/counter_table: no CRC.db)
// makes the value invalid UTF-8. The reader does not validate values, so
// the encoder meets it first; dump must still report a CorruptionError
// naming Data.db and the partition's offset, as it does for every other
// kind of damage.
func TestDumpDamagedValueIsCorruption(t *testing.T) {
	src := testdata.Path(t, "mc-write", "counter_table")
	dir := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "mc-1-big-") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "mc-1-big-Data.db" {
			b[210] ^= 0xff // inside the text clustering value
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := &Env{Stdout: io.Discard, Stderr: io.Discard, Quiet: true}
	err = Dump(env, DumpOptions{SSTable: filepath.Join(dir, "mc-1-big-Data.db")})
	var ce *sstables.CorruptionError
	if !errors.As(err, &ce) || ce.Component != string(sstables.ComponentData) || ce.Offset != 0 {
		t.Fatalf("dump of a damaged text value: got %v, want a Data.db CorruptionError at the partition's offset 0", err)
	}
	if ExitCode(err) != ExitData {
		t.Fatalf("exit code %d, want %d", ExitCode(err), ExitData)
	}
}

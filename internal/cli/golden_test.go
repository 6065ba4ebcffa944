package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/castable-db/castable/internal/testdata"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

// goldenNow fixes the clock droppable tombstones are estimated at.
var goldenNow = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// TestMetadataGolden: castable metadata (text and JSON) of real mc and la
// files.
func TestMetadataGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		path   []string
		json   bool
	}{
		{"metadata_mc_lz4.txt", []string{"cassandra", "3.x", "lz4", "partition_key_with_values_of_different_types"}, false},
		{"metadata_mc_range_tombstones.txt", []string{"cassandra", "3.x", "uncompressed", "range_tombstones_simple"}, false},
		{"metadata_me_zstd.json", []string{"cassandra", "3.x", "zstd", "partition_key_with_values_of_different_types"}, true},
		{"metadata_la_lz4.txt", []string{"cassandra", "compressed"}, false},
		{"metadata_la_ttl.json", []string{"cassandra", "ttl"}, true},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var out bytes.Buffer
			err := Metadata(&Env{Stdout: &out}, MetadataOptions{SSTable: testdata.Path(t, tc.path...), JSON: tc.json, Now: goldenNow})
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.golden, out.Bytes())
		})
	}
}

// TestLayoutGolden: castable layout of real files, with and without -k.
func TestLayoutGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		path   []string
		key    string
	}{
		{"layout_mc_lz4.txt", []string{"cassandra", "3.x", "lz4", "partition_key_with_values_of_different_types"}, ""},
		{"layout_mc_crc.txt", []string{"cassandra", "3.x", "uncompressed", "simple"}, ""},
		{"layout_mc_promoted_index.txt", []string{"mc-write", "many_range_tombstones"}, "key1"},
		{"layout_la_promoted_index.txt", []string{"cassandra", "promoted_index_read"}, ""},
		{"layout_la_promoted_index_key.txt", []string{"cassandra", "promoted_index_read"}, "00000000"},
		{"layout_mc_byteordered.txt", []string{"cassandra-legacy", "mc", "legacy_mc_simple"}, ""},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var out bytes.Buffer
			if err := Layout(&Env{Stdout: &out}, LayoutOptions{SSTable: testdata.Path(t, tc.path...), Key: tc.key}); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.golden, out.Bytes())
		})
	}
}

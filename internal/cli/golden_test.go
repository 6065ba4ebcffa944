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

// TestMetadataGolden: castable metadata (text and JSON) of real files of
// every kind of Statistics.db: la, ma, mc, me, na (checksummed), nb (host
// id), oa (improved min/max, key range, token space coverage), da and
// ScyllaDB's ms.
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
		{"metadata_ma_simple.txt", []string{"cassandra-legacy", "ma", "legacy_ma_simple"}, false},
		{"metadata_na_clust.txt", []string{"cassandra-legacy", "na", "legacy_na_clust"}, false},
		{"metadata_nb_clust.txt", []string{"cassandra-legacy", "nb", "legacy_nb_clust"}, false},
		{"metadata_oa_clust.txt", []string{"cassandra-legacy", "oa", "legacy_oa_clust"}, false},
		{"metadata_oa_clust.json", []string{"cassandra-legacy", "oa", "legacy_oa_clust"}, true},
		{"metadata_da_clust.txt", []string{"cassandra-legacy", "da", "legacy_da_clust"}, false},
		{"metadata_ms_large_partition.txt", []string{"scylla-bti", "large_partition", "ms-3-big-Data.db"}, false},
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
		{"layout_da_clust.txt", []string{"cassandra-legacy", "da", "legacy_da_clust"}, ""},
		{"layout_da_clust_key.txt", []string{"cassandra-legacy", "da", "legacy_da_clust"}, "2"},
		{"layout_ms_large_partition_key.txt", []string{"scylla-bti", "large_partition", "ms-3-big-Data.db"}, "v1"},
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

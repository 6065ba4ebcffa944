package big

import (
	"bytes"
	"fmt"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables/internal/rows"
	"github.com/castable-db/castable/sstables/version"
	"os"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// writeDecoded writes decoded partitions with the Writer, using the
// reference header's EncodingStats and columns.
func writeDecoded(t *testing.T, v version.Version, table *schema.Table, st *sstables.Statistics, parts []decodedPartition, opts sstables.WriterOptions) (*sstables.WriteResult, sstables.Descriptor) {
	t.Helper()
	h := st.Header
	static, _ := rows.HeaderColumns(table, h.Static, schema.Static)
	regular, _ := rows.HeaderColumns(table, h.Regular, schema.Regular)
	cols := append(append([]*schema.Column{}, static...), regular...)
	if cols == nil {
		cols = []*schema.Column{}
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	opts.Generation = 1
	opts.Stats = sstables.DataStats{Known: true, MinTimestamp: h.Stats.MinTimestamp,
		MinLocalDeletionTime: h.Stats.LocalDeletionTime(0), MinTTL: h.Stats.MinTTL, Columns: cols}
	opts.ScyllaShadowable = true
	if opts.Compression == nil {
		opts.Compression = &compress.Params{}
	}
	w, err := NewWriter(v, table, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, dp := range parts {
		if err := w.Append(dp.p); err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	res, err := w.Finish()
	if err != nil {
		w.Abort()
		t.Fatal(err)
	}
	return res, res.Descriptor
}

// TestWriterReproducesReferenceContent writes the decoded content of every
// uncompressed reference SSTable through the Writer (Append, uncompressed)
// and compares Data.db, Index.db, Digest.crc32 and CRC.db with the
// reference files.
func TestWriterReproducesReferenceContent(t *testing.T) {
	for _, ref := range refSSTables(t, false) {
		if ref.has("CompressionInfo.db") {
			continue
		}
		t.Run(ref.name, func(t *testing.T) {
			data := ref.read(t, "Data.db")
			st, table, parts := decodeReference(t, ref, data)
			// Statistics.db values that do not follow from the data are
			// taken from the reference.
			table.Options.BloomFilterFPChance = st.BloomFilterFPChance
			_, desc := writeDecoded(t, ref.version, table, st, parts, sstables.WriterOptions{Metadata: sstables.Metadata{
				CommitLogIntervals: st.Stats.CommitLogIntervals,
				RepairedAt:         st.Stats.RepairedAt,
				Level:              int(st.Stats.Level),
			}})
			for _, c := range []string{"Summary.db", "Statistics.db"} {
				if !ref.has(c) {
					continue
				}
				got, err := os.ReadFile(desc.Path(sstables.Component(c)))
				if err != nil {
					t.Fatal(err)
				}
				if want := ref.read(t, c); !bytes.Equal(got, want) {
					t.Logf("informational: %s differs: %s", c, testdata.FirstDiff(got, want))
					if c == "Statistics.db" {
						gst, err := sstables.DecodeStatistics(got, vmc, desc.Path(sstables.ComponentStatistics))
						if err != nil {
							t.Fatal(err)
						}
						t.Logf("informational: Statistics.db fields that differ: %v", statisticsDiff(gst, st))
					}
				} else {
					t.Logf("%s identical", c)
				}
			}
			for _, c := range []string{"Data.db", "Index.db", "Digest.crc32", "CRC.db", "Filter.db"} {
				if !ref.has(c) {
					continue
				}
				got, err := os.ReadFile(desc.Path(sstables.Component(c)))
				if err != nil {
					t.Fatal(err)
				}
				if want := ref.read(t, c); !bytes.Equal(got, want) {
					t.Errorf("%s: %s", c, testdata.FirstDiff(got, want))
				}
			}
		})
	}
}

// statisticsDiff names the Statistics fields that differ.
func statisticsDiff(a, b *sstables.Statistics) []string {
	var out []string
	add := func(name string, equal bool) {
		if !equal {
			out = append(out, name)
		}
	}
	add("partitioner", a.Partitioner == b.Partitioner)
	add("bloom_filter_fp_chance", a.BloomFilterFPChance == b.BloomFilterFPChance)
	add("cardinality (HLL)", bytes.Equal(a.Cardinality, b.Cardinality))
	x, y := &a.Stats, &b.Stats
	add("partition sizes", fmt.Sprint(x.PartitionSizes) == fmt.Sprint(y.PartitionSizes))
	add("cells per partition", fmt.Sprint(x.CellsPerPartition) == fmt.Sprint(y.CellsPerPartition))
	add("commit log upper bound", x.CommitLogUpperBound == y.CommitLogUpperBound)
	add("commit log lower bound", x.CommitLogLowerBound == y.CommitLogLowerBound)
	add("commit log intervals", fmt.Sprint(x.CommitLogIntervals) == fmt.Sprint(y.CommitLogIntervals))
	add(fmt.Sprintf("min timestamp %d/%d", x.MinTimestamp, y.MinTimestamp), x.MinTimestamp == y.MinTimestamp)
	add(fmt.Sprintf("max timestamp %d/%d", x.MaxTimestamp, y.MaxTimestamp), x.MaxTimestamp == y.MaxTimestamp)
	add(fmt.Sprintf("min ldt %d/%d", x.MinLocalDeletionTime, y.MinLocalDeletionTime), x.MinLocalDeletionTime == y.MinLocalDeletionTime)
	add(fmt.Sprintf("max ldt %d/%d", x.MaxLocalDeletionTime, y.MaxLocalDeletionTime), x.MaxLocalDeletionTime == y.MaxLocalDeletionTime)
	add(fmt.Sprintf("min ttl %d/%d", x.MinTTL, y.MinTTL), x.MinTTL == y.MinTTL)
	add(fmt.Sprintf("max ttl %d/%d", x.MaxTTL, y.MaxTTL), x.MaxTTL == y.MaxTTL)
	add(fmt.Sprintf("compression ratio %v/%v", x.CompressionRatio, y.CompressionRatio), x.CompressionRatio == y.CompressionRatio)
	add(fmt.Sprintf("tombstone histogram %v/%v", x.TombstoneDropTimes, y.TombstoneDropTimes), fmt.Sprint(x.TombstoneDropTimes) == fmt.Sprint(y.TombstoneDropTimes))
	add("level", x.Level == y.Level)
	add("repairedAt", x.RepairedAt == y.RepairedAt)
	add(fmt.Sprintf("min clustering %x/%x", x.MinClusteringValues, y.MinClusteringValues), fmt.Sprint(x.MinClusteringValues) == fmt.Sprint(y.MinClusteringValues))
	add(fmt.Sprintf("max clustering %x/%x", x.MaxClusteringValues, y.MaxClusteringValues), fmt.Sprint(x.MaxClusteringValues) == fmt.Sprint(y.MaxClusteringValues))
	add("legacy counter shards", x.HasLegacyCounterShards == y.HasLegacyCounterShards)
	add(fmt.Sprintf("totalColumnsSet %d/%d", x.TotalColumnsSet, y.TotalColumnsSet), x.TotalColumnsSet == y.TotalColumnsSet)
	add(fmt.Sprintf("totalRows %d/%d", x.TotalRows, y.TotalRows), x.TotalRows == y.TotalRows)
	add("serialization header", bytes.Equal(sstables.AppendSerializationHeader(nil, a.Header), sstables.AppendSerializationHeader(nil, b.Header)))
	return out
}

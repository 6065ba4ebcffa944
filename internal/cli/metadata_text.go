package cli

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// histogramBarWidth is the width of the longest histogram bar.
const histogramBarWidth = 40

// WriteText renders the metadata as sstablemetadata does, with the
// histograms drawn as text bars.
func (md *SSTableMetadata) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	p("SSTable: %s", md.SSTable)
	p("Version: %s (generation %d)", md.Version, md.Generation)
	readBy := "no Cassandra release"
	if len(md.ReadBy) > 0 {
		readBy = "Cassandra " + strings.Join(md.ReadBy, ", ")
	}
	p("Written by %s; read by %s", md.WrittenBy, readBy)
	p("Partitioner: %s", md.Partitioner)
	if md.BloomFilterFPChance > 0 {
		p("Bloom Filter FP chance: %f", md.BloomFilterFPChance)
	}
	p("Minimum timestamp: %d (%s)", md.MinTimestamp, isoMicros(md.MinTimestamp))
	p("Maximum timestamp: %d (%s)", md.MaxTimestamp, isoMicros(md.MaxTimestamp))
	if md.MinLocalDeletionTime != nil {
		p("SSTable min local deletion time: %s", deletionTime(*md.MinLocalDeletionTime))
	}
	p("SSTable max local deletion time: %s", deletionTime(md.MaxLocalDeletionTime))
	if md.MinTTL != nil {
		p("TTL min: %d", *md.MinTTL)
	}
	if md.MaxTTL != nil {
		p("TTL max: %d", *md.MaxTTL)
	}
	c := md.Compression
	if c.Class != "" {
		p("Compressor: %s", c.Class)
		if len(c.Options) > 0 {
			keys := make([]string, 0, len(c.Options))
			for k := range c.Options {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p("Compressor option: %s = %s", k, c.Options[k])
			}
		}
		p("Chunk length: %d (%d chunks)", c.ChunkLength, c.Chunks)
	} else {
		p("Compressor: none (checksums in CRC.db: %d chunks of %d bytes)", c.Chunks, c.ChunkLength)
	}
	p("Data.db: %d bytes uncompressed, %d bytes on disk (%.3f)", c.DataLength, c.DataFileSize, ratio(c.DataFileSize, c.DataLength))
	p("Compression ratio: %v", float64(c.Ratio))
	p("Estimated droppable tombstones: %v", float64(md.EstimatedDroppableTombstones))
	p("SSTable Level: %d", md.Level)
	p("Repaired at: %d", md.RepairedAt)
	for _, iv := range md.CommitLogIntervals {
		p("Commit log interval: (%d, %d) - (%d, %d)", iv.Lower.SegmentID, iv.Lower.Position, iv.Upper.SegmentID, iv.Upper.Position)
	}
	if md.ReplayPosition != nil {
		p("Replay position: (%d, %d)", md.ReplayPosition.SegmentID, md.ReplayPosition.Position)
	}
	if len(md.Ancestors) > 0 {
		p("Ancestors: %v", md.Ancestors)
	}
	if md.OriginatingHostID != "" {
		p("Originating host id: %s", md.OriginatingHostID)
	}
	if md.IsTransient != nil {
		pending := md.PendingRepair
		if pending == "" {
			pending = "none"
		}
		p("Pending repair: %s", pending)
		p("Is transient: %v", *md.IsTransient)
	}
	if md.HasPartitionLevelDeletions != nil {
		p("Has partition level deletions: %v", *md.HasPartitionLevelDeletions)
	}
	if md.FirstKey != "" || md.LastKey != "" {
		p("First key: %s", md.FirstKey)
		p("Last key: %s", md.LastKey)
	}
	if cs := md.CoveredClustering; cs != nil {
		p("Covered clustering: %s - %s (%s)", cs.Start, cs.End, strings.Join(cs.Types, ", "))
	}
	if md.TokenSpaceCoverage != nil {
		p("Token space coverage: %v", float64(*md.TokenSpaceCoverage))
	}
	p("Has legacy counter shards: %v", md.HasLegacyCounterShards)
	if md.TotalRows != nil {
		p("Total rows: %d", *md.TotalRows)
	}
	if md.TotalColumnsSet != nil {
		p("Total columns set: %d", *md.TotalColumnsSet)
	}
	p("Estimated partitions: %d", md.EstimatedPartitions)
	p("minClusteringValues: [%s]", strings.Join(md.MinClustering, ", "))
	p("maxClusteringValues: [%s]", strings.Join(md.MaxClustering, ", "))
	p("Estimated tombstone drop times:")
	drawTombstones(b, md.TombstoneDropTimes)
	p("Partition Size (bytes):")
	drawHistogram(b, md.PartitionSizes)
	p("Cells per partition:")
	drawHistogram(b, md.CellCounts)
	if h := md.Header; h != nil {
		p("Serialization header:")
		p("  min timestamp: %d, min local deletion time: %d, min TTL: %d", h.MinTimestamp, h.MinLocalDeletionTime, h.MinTTL)
		p("  partition key: %s", h.PartitionKeyType)
		p("  clustering: [%s]", strings.Join(h.ClusteringTypes, ", "))
		for _, col := range h.Static {
			p("  static  %s: %s", col.Name, col.Type)
		}
		for _, col := range h.Regular {
			p("  regular %s: %s", col.Name, col.Type)
		}
	}
	if s := md.Summary; s != nil {
		p("Summary: %d entries, min index interval %d, sampling level %d, size at full sampling %d", s.Entries, s.MinIndexInterval, s.SamplingLevel, s.SizeAtFullSampling)
		if s.FirstToken != "" {
			p("  first key: %s (token %s)", s.FirstKey, s.FirstToken)
			p("  last key: %s (token %s)", s.LastKey, s.LastToken)
		} else {
			p("  first key: %s", s.FirstKey)
			p("  last key: %s", s.LastKey)
		}
	}
	if len(md.TOC) > 0 {
		p("TOC: %s", strings.Join(md.TOC, ", "))
	}
	return b.Flush()
}

// deletionTime renders a local deletion time; Integer.MAX_VALUE means none.
// deletionTime renders a stored local deletion time (Integer.MAX_VALUE,
// or from oa 0xFFFFFFFF, for none).
func deletionTime(v int64) string {
	if v == 1<<31-1 || v == 1<<32-1 {
		return fmt.Sprintf("%d (no deletion)", v)
	}
	return fmt.Sprintf("%d (%s)", v, isoSeconds(v))
}

// drawHistogram prints the non-empty buckets with bars scaled to the
// largest count.
func drawHistogram(w io.Writer, h []HistogramBucket) {
	var top int64
	for _, b := range h {
		top = max(top, b.Count)
	}
	if top == 0 {
		fmt.Fprintln(w, "  (empty)")
		return
	}
	for _, b := range h {
		if b.Count == 0 {
			continue
		}
		label := fmt.Sprintf("<= %d", b.Upper)
		if b.Overflow {
			label = fmt.Sprintf("> %d", b.Upper)
		}
		fmt.Fprintf(w, "  %14s %10d %s\n", label, b.Count, bar(b.Count, top))
	}
}

func drawTombstones(w io.Writer, bins []TombstoneBin) {
	var top int64
	for _, b := range bins {
		top = max(top, b.Count)
	}
	if top == 0 {
		fmt.Fprintln(w, "  (none)")
		return
	}
	for _, b := range bins {
		fmt.Fprintf(w, "  %14.0f %10d %s\n", b.Time, b.Count, bar(b.Count, top))
	}
}

func bar(n, top int64) string {
	w := int((n*histogramBarWidth + top - 1) / top)
	return strings.Repeat("#", max(w, 1))
}

package sorted

import (
	"io"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
)

// IndexVerifier is an index layout's part of Verify: it is shown every
// Data.db partition in order and checks its index against them.
type IndexVerifier interface {
	// Partition is called for each partition as Data.db holds it: its
	// key (valid during the call), Data.db position, header length and
	// deletion. It checks the index's entry for it and returns the
	// checker of its row-index blocks (nil: the entry has none).
	Partition(key []byte, pos, headerLength int64, deletion mutation.DeletionTime) (BlockVerifier, error)
	// End is called after Data.db's last partition with the first and
	// last keys and the partition count; it checks that the index holds
	// nothing more.
	End(first, last []byte, count int64) error
}

// BlockVerifier checks one partition's row-index blocks against its
// unfiltereds as Data.db holds them.
type BlockVerifier interface {
	// Before is called with the partition-relative offset of the next
	// unfiltered; it reports whether a block starts there.
	Before(off int64) (bool, error)
	// Saw records the unfiltered just read (starts: it begins a block);
	// marker is set for a range tombstone marker.
	Saw(kind mutation.BoundKind, clust mutation.Clustering, starts bool, marker *mutation.RangeTombstoneMarker) error
	// End is called at the partition's end with its size (the
	// end-of-partition byte included).
	End(size int64) error
}

// Verify checks, stopping at the first problem:
//   - with sstables.VerifySSTable: that every component TOC.txt lists
//     exists, every Data.db chunk checksum (trailers or CRC.db), the digest
//     file against the whole-file checksum (combined from the chunk
//     checksums), and that Summary.db and Filter.db parse;
//   - that Data.db decodes to its end (every partition, row and marker, every
//     size consistent) with partitions in the partitioner's order;
//   - what the index layout checks (iv, made from the report): that it
//     names exactly Data.db's partitions at their positions, with row-index
//     blocks that match their unfiltereds;
//   - that every timestamp and TTL lies within Statistics.db's bounds
//     (which catches damage to the serialization header's delta-encoding
//     minima), and every local deletion time, or a warning;
//   - that the bloom filter holds exactly the keys: every key's bits set,
//     and no bit set that no key sets (a warning), and that it is not far
//     too small for them (a warning: sstables.FilterRebuild.CheckSize).
//
// Statistics.db was parsed by Open.
func (r *Reader) Verify(newVerifier func(rep *sstables.VerifyReport) (IndexVerifier, error)) error {
	rep, err := sstables.VerifySSTable(r.desc, sstables.VerifyOptions{FS: r.fsys, Warn: r.warn})
	if err != nil {
		return err
	}
	iv, err := newVerifier(rep)
	if err != nil {
		return err
	}
	sc := r.ScanFromPos(0)
	defer sc.Release()
	dataPath := r.desc.Path(sstables.ComponentData)
	var firstKey, prevKey []byte
	var prevToken dht.Token
	var count int64
	bounds := rows.NewStatsBounds(&r.stats.Stats, r.desc.Path(sstables.ComponentStatistics), r.warn)
	rebuild := sstables.NewFilterRebuild(rep.Filter)
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			if err := iv.End(firstKey, prevKey, count); err != nil {
				return err
			}
			if err := rebuild.Check(r.desc.Path(sstables.ComponentFilter), r.warn); err != nil {
				return err
			}
			index := sstables.ComponentIndex
			if r.desc.Version.Tries() {
				index = sstables.ComponentPartitions
			}
			rebuild.CheckSize(r.desc.Path(sstables.ComponentFilter), r.stats.BloomFilterFPChance, index, r.warn)
			return nil
		}
		if err != nil {
			return err
		}
		start := sc.Position()
		blocks, err := iv.Partition(p.Key, start, sc.HeaderEnd()-start, p.Deletion)
		if err != nil {
			return err
		}
		if count > 0 && dht.ComparePartitions(prevToken, prevKey, p.Token, p.Key) >= 0 {
			return sstables.Corruptf(dataPath, string(sstables.ComponentData), start, "partition key %x out of token order", p.Key)
		}
		if count == 0 {
			firstKey = append([]byte(nil), p.Key...)
		}
		if !rebuild.Add(p.Key) {
			return sstables.Corruptf(r.desc.Path(sstables.ComponentFilter), string(sstables.ComponentFilter), -1, "bloom filter does not contain partition key %x", p.Key)
		}
		count++
		prevKey = append(prevKey[:0], p.Key...)
		prevToken = r.part.Token(prevKey) // p.Token refers to the scanner's buffer
		if err := bounds.Deletion(p.Deletion, start); err != nil {
			return err
		}
		if err := bounds.Row(&p.Static, start); err != nil {
			return err
		}
		for {
			startsBlock := false
			if blocks != nil {
				if startsBlock, err = blocks.Before(sc.Pos() - start); err != nil {
					return err
				}
			}
			row, m, err := sc.Next()
			if err != nil {
				return err
			}
			if row == nil && m == nil {
				break
			}
			if row != nil {
				err = bounds.Row(row, start)
				if err == nil && blocks != nil {
					err = blocks.Saw(mutation.ClusteringKind, row.Clustering, startsBlock, nil)
				}
			} else {
				err = bounds.Marker(m, start)
				if err == nil && blocks != nil {
					err = blocks.Saw(m.Kind, m.Clustering, startsBlock, m)
				}
			}
			if err != nil {
				return err
			}
		}
		if blocks != nil {
			if err := blocks.End(sc.Pos() - start); err != nil {
				return err
			}
		}
	}
}

// OpenAfter returns the range deletion a marker of kind leaves open (Live
// for an end bound), given the marker.
func OpenAfter(m *mutation.RangeTombstoneMarker) mutation.DeletionTime {
	switch m.Kind {
	case mutation.InclStartBound, mutation.ExclStartBound, mutation.ExclEndInclStartBoundary, mutation.InclEndExclStartBoundary:
		return m.Open
	}
	return mutation.Live
}

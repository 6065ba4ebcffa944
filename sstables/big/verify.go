package big

import (
	"bytes"
	"io"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
)

// Verify implements sstables.Reader. It checks, stopping at the first
// problem:
//   - with sstables.VerifySSTable: that every component TOC.txt lists
//     exists, every Data.db chunk checksum (trailers or CRC.db), the digest
//     file against the whole-file checksum (combined from the chunk
//     checksums), and that Summary.db and Filter.db parse;
//   - that Data.db decodes to its end (every partition, row and marker, every
//     size consistent) with partitions in token order;
//   - that Index.db decodes and names, in order, exactly the partitions of
//     Data.db at their positions, with promoted index blocks that tile the
//     partition, start where unfiltereds start and name the first and last
//     clustering and the open range deletion of their unfiltereds;
//   - that every timestamp, local deletion time and TTL lies within
//     Statistics.db's bounds (which catches damage to the serialization
//     header's delta-encoding minima);
//   - that the bloom filter holds exactly the keys: every key's bits set,
//     and no bit set that no key sets;
//   - that every Summary.db entry names the key of the Index.db entry at its
//     position, in order, and the summary's first and last keys are
//     Data.db's.
//
// Statistics.db was parsed by Open.
func (r *Reader) Verify() error {
	rep, err := sstables.VerifySSTable(r.desc, sstables.VerifyOptions{FS: r.fsys})
	if err != nil {
		return err
	}
	first, last, err := r.verifyRows(rep.Filter, rep.Summary)
	if err != nil {
		return err
	}
	if s := rep.Summary; s != nil {
		path := r.desc.Path(sstables.ComponentSummary)
		if !bytes.Equal(s.First, first) || !bytes.Equal(s.Last, last) {
			return sstables.Corruptf(path, string(sstables.ComponentSummary), -1, "first/last keys %x/%x differ from Data.db's %x/%x", s.First, s.Last, first, last)
		}
	}
	return nil
}

// verifyRows decodes Data.db and Index.db side by side, matching the
// summary's samples against the index entries. It returns the first and last
// keys.
func (r *Reader) verifyRows(filter *sstables.BloomFilter, summary *sstables.Summary) (firstKey, lastKey []byte, err error) {
	summaryPath := r.desc.Path(sstables.ComponentSummary)
	sample := 0
	var entries int64 // index entries seen
	// checkSample matches the next summary entry against the index entry e.
	checkSample := func(e *IndexEntry) error {
		entries++
		if summary == nil || sample >= summary.Len() || summary.IndexPosition(sample) != e.Offset {
			return nil
		}
		if !bytes.Equal(summary.Key(sample), e.Key) {
			return sstables.Corruptf(summaryPath, string(sstables.ComponentSummary), -1,
				"entry %d has key %x, the Index.db entry at offset %d has %x", sample, summary.Key(sample), e.Offset, e.Key)
		}
		if err := summary.CheckSampleAt(sample, entries-1, summaryPath); err != nil {
			return err
		}
		sample++
		return nil
	}
	// checkSummaryEnd requires every summary entry to have been matched.
	checkSummaryEnd := func() error {
		if summary == nil {
			return nil
		}
		if sample != summary.Len() {
			return sstables.Corruptf(summaryPath, string(sstables.ComponentSummary), -1,
				"entry %d (Index.db position %d) matches no index entry in order", sample, summary.IndexPosition(sample))
		}
		return summary.CheckPartitionCount(entries, summaryPath)
	}
	it, closer, err := r.openIndex(0, true)
	if err != nil {
		return nil, nil, err
	}
	defer closer.Close()
	sc := r.scanFrom(0)
	indexPath := r.desc.Path(sstables.ComponentIndex)
	dataPath := r.desc.Path(sstables.ComponentData)
	var prevKey []byte
	var prevToken dht.Token
	first := true
	bounds := rows.NewStatsBounds(&r.stats.Stats, r.desc.Path(sstables.ComponentStatistics))
	var blocks blockChecker
	rebuild := sstables.NewFilterRebuild(filter)
	for {
		p, err := sc.NextPartition()
		e, ierr := it.next()
		if err == io.EOF {
			if ierr == nil {
				return nil, nil, sstables.Corruptf(indexPath, string(sstables.ComponentIndex), e.Offset, "entry for a partition at Data.db offset %d after Data.db's last partition", e.Position)
			}
			if ierr != io.EOF {
				return nil, nil, ierr
			}
			if err := checkSummaryEnd(); err != nil {
				return nil, nil, err
			}
			if err := rebuild.Check(r.desc.Path(sstables.ComponentFilter)); err != nil {
				return nil, nil, err
			}
			return firstKey, prevKey, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if ierr == io.EOF {
			return nil, nil, sstables.Corruptf(indexPath, string(sstables.ComponentIndex), -1, "no entry for the partition at Data.db offset %d", sc.Position())
		}
		if ierr != nil {
			return nil, nil, ierr
		}
		if !bytes.Equal(e.Key, p.Key) || e.Position != sc.Position() {
			return nil, nil, sstables.Corruptf(indexPath, string(sstables.ComponentIndex), e.Offset,
				"entry (key %x, position %d) does not match Data.db's partition (key %x) at offset %d", e.Key, e.Position, p.Key, sc.Position())
		}
		if err := checkSample(&e); err != nil {
			return nil, nil, err
		}
		if !first && dht.ComparePartitions(prevToken, prevKey, p.Token, p.Key) >= 0 {
			return nil, nil, sstables.Corruptf(dataPath, string(sstables.ComponentData), sc.Position(), "partition key %x out of token order", p.Key)
		}
		if first {
			firstKey = append([]byte(nil), p.Key...)
		}
		if !rebuild.Add(p.Key) {
			return nil, nil, sstables.Corruptf(r.desc.Path(sstables.ComponentFilter), string(sstables.ComponentFilter), -1, "bloom filter does not contain partition key %x", p.Key)
		}
		first = false
		prevKey = append(prevKey[:0], p.Key...)
		prevToken = r.part.Token(prevKey) // p.Token refers to the scanner's buffer
		start := sc.Position()
		if err := bounds.Deletion(p.Deletion, start); err != nil {
			return nil, nil, err
		}
		if err := bounds.Row(&p.Static, start); err != nil {
			return nil, nil, err
		}
		blocks.reset(e.Promoted, indexPath, e.Offset)
		for {
			startsBlock, err := blocks.before(sc.Pos() - start)
			if err != nil {
				return nil, nil, err
			}
			row, m, err := sc.Next()
			if err != nil {
				return nil, nil, err
			}
			if row == nil && m == nil {
				break
			}
			if row != nil {
				err = bounds.Row(row, start)
				if err == nil {
					err = blocks.saw(mutation.ClusteringKind, row.Clustering, startsBlock, nil)
				}
			} else {
				err = bounds.Marker(m, start)
				if err == nil {
					err = blocks.saw(m.Kind, m.Clustering, startsBlock, m)
				}
			}
			if err != nil {
				return nil, nil, err
			}
		}
		if err := blocks.end(); err != nil {
			return nil, nil, err
		}
		size := sc.Pos() - start
		if pi := e.Promoted; pi != nil {
			next := pi.HeaderLength
			for i, b := range pi.Blocks {
				if b.Offset != next || b.Width <= 0 || b.Offset+b.Width > size {
					return nil, nil, sstables.Corruptf(indexPath, string(sstables.ComponentIndex), e.Offset,
						"promoted index block %d (offset %d, width %d) does not fit the partition of %d bytes", i, b.Offset, b.Width, size)
				}
				next = b.Offset + b.Width
			}
			if pi.Deletion != p.Deletion {
				return nil, nil, sstables.Corruptf(indexPath, string(sstables.ComponentIndex), e.Offset, "promoted index deletion differs from the partition's")
			}
		}
	}
}

package la

import (
	"bytes"
	"io"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/sstables"
)

// Verify implements sstables.Reader. It checks, stopping at the first
// problem (a CorruptionError naming file, component and offset):
//
//   - the shared components (sstables.VerifySSTable): TOC.txt, every
//     Data.db chunk against its Adler-32 trailer or CRC.db, the digest
//     (Digest.adler32, or Digest.sha1 with the early payload-only variant
//     accepted), CompressionInfo.db, Summary.db, Filter.db;
//   - Statistics.db parses (done by Open);
//   - every partition of Data.db decodes into rows and markers with the
//     table, in token order;
//   - Index.db has exactly one entry per partition, in order, with the
//     partition's key, position and deletion, and promoted-index blocks
//     inside the partition;
//   - Filter.db holds exactly the keys (every key's bits set, no other bit
//     set), Summary.db's samples and first/last keys match Index.db.
func (r *Reader) Verify() error {
	rep, err := sstables.VerifySSTable(r.desc, sstables.VerifyOptions{FS: r.fsys, Warn: r.warn})
	if err != nil {
		return err
	}
	return r.verifyRows(rep.Filter, rep.Summary)
}

func (r *Reader) verifyRows(filter *sstables.BloomFilter, summary *sstables.Summary) error {
	indexPath := r.desc.Path(sstables.ComponentIndex)
	f, err := r.fsys.Open(indexPath)
	if err != nil {
		return err
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return err
	}
	idx := newInput(f, 0, size, indexPath, sstables.ComponentIndex)
	rebuild := sstables.NewFilterRebuild(filter)
	s := r.scanFrom(0)
	var (
		e         indexEntry
		arena     []byte
		prevKey   []byte
		prevToken dht.Token
		firstKey  []byte
		parts     int
		sample    int
	)
	for {
		p, err := s.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		start := s.Position()
		token := r.part.Token(p.Key)
		if parts > 0 && dht.ComparePartitions(prevToken, prevKey, token, p.Key) >= 0 {
			return s.in.corrupt(start, "partition %x (token %s) is not after %x (token %s)", p.Key, r.part.String(token), prevKey, r.part.String(prevToken))
		}
		if parts == 0 {
			firstKey = bytes.Clone(p.Key)
		}
		if !rebuild.Add(p.Key) {
			return sstables.Corruptf(r.desc.Path(sstables.ComponentFilter), string(sstables.ComponentFilter), -1, "does not contain partition key %x", p.Key)
		}
		for {
			row, m, err := s.Next()
			if err != nil {
				return err
			}
			if row == nil && m == nil {
				break
			}
		}
		end := s.in.offset()

		arena = arena[:0]
		ok, err := readIndexEntry(idx, &e, &arena)
		if err != nil {
			return err
		}
		if !ok {
			return idx.corrupt(idx.offset(), "no entry for partition %x at Data.db offset %d", p.Key, start)
		}
		switch {
		case !bytes.Equal(e.key, p.Key):
			return idx.corrupt(e.offset, "entry for key %x, Data.db has %x at offset %d", e.key, p.Key, start)
		case e.position != start:
			return idx.corrupt(e.offset, "entry for %x points to Data.db offset %d, the partition is at %d", e.key, e.position, start)
		case len(e.blocks) > 0 && e.deletion != p.Deletion:
			return idx.corrupt(e.offset, "entry for %x has partition deletion %v, Data.db has %v", e.key, e.deletion, p.Deletion)
		}
		header := int64(partitionHeaderFixed + len(p.Key))
		body := end - start - endOfPartitionSize
		for i, b := range e.blocks {
			if b.offset < header || b.offset+b.width > body {
				return idx.corrupt(e.offset, "promoted index block %d [%d, %d) lies outside the partition's atoms [%d, %d)", i, b.offset, b.offset+b.width, header, body)
			}
		}
		if summary != nil && sample < summary.Len() && summary.IndexPosition(sample) == e.offset {
			if !bytes.Equal(summary.Key(sample), p.Key) {
				return sstables.Corruptf(r.desc.Path(sstables.ComponentSummary), string(sstables.ComponentSummary), -1,
					"entry %d has key %x, Index.db has %x at offset %d", sample, summary.Key(sample), p.Key, e.offset)
			}
			if err := summary.CheckSampleAt(sample, int64(parts), r.desc.Path(sstables.ComponentSummary)); err != nil {
				return err
			}
			sample++
		}
		prevKey = append(prevKey[:0], p.Key...)
		prevToken = r.part.Token(prevKey)
		parts++
	}
	if idx.remaining() != 0 {
		return idx.corrupt(idx.offset(), "%d bytes of entries after the last partition", idx.remaining())
	}
	if err := rebuild.Check(r.desc.Path(sstables.ComponentFilter), r.warn); err != nil {
		return err
	}
	rebuild.CheckSize(r.desc.Path(sstables.ComponentFilter), r.stats.BloomFilterFPChance, sstables.ComponentIndex, r.warn)
	if summary != nil {
		sp := r.desc.Path(sstables.ComponentSummary)
		switch {
		case sample != summary.Len():
			return sstables.Corruptf(sp, string(sstables.ComponentSummary), -1, "only %d of its %d entries match Index.db", sample, summary.Len())
		case parts > 0 && (!bytes.Equal(summary.First, firstKey) || !bytes.Equal(summary.Last, prevKey)):
			return sstables.Corruptf(sp, string(sstables.ComponentSummary), -1, "first/last keys %x/%x, Data.db has %x/%x", summary.First, summary.Last, firstKey, prevKey)
		}
		if err := summary.CheckPartitionCount(int64(parts), sp); err != nil {
			return err
		}
	}
	return nil
}

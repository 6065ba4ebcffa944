package big

import (
	"bytes"
	"io"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/sorted"
)

// Verify implements sstables.Reader. Beside what every format checks
// (sorted.Reader.Verify: every component TOC.txt lists, every chunk
// checksum and the digest, Data.db decoded to its end in token order,
// Statistics.db's bounds, the bloom filter holding exactly the keys) it
// checks, stopping at the first problem:
//   - that Index.db decodes and names, in order, exactly the partitions of
//     Data.db at their positions, with promoted index blocks that tile the
//     partition, start where unfiltereds start and name the first and last
//     clustering and the open range deletion of their unfiltereds;
//   - that every Summary.db entry names the key of the Index.db entry at its
//     position, in order, and the summary's first and last keys are
//     Data.db's.
func (r *Reader) Verify() error {
	var iv *indexVerifier
	defer func() {
		if iv != nil && iv.closer != nil {
			iv.closer.Close()
		}
	}()
	return r.s.Verify(func(rep *sstables.VerifyReport) (sorted.IndexVerifier, error) {
		it, closer, err := r.openIndex(0, true)
		if err != nil {
			return nil, err
		}
		iv = &indexVerifier{r: r, it: it, closer: closer, summary: rep.Summary,
			indexPath: r.desc.Path(sstables.ComponentIndex), summaryPath: r.desc.Path(sstables.ComponentSummary)}
		return iv, nil
	})
}

// indexVerifier reads Index.db beside Data.db during Verify, matching the
// summary's samples against the index entries.
type indexVerifier struct {
	r                      *Reader
	it                     *indexIterator
	closer                 io.Closer
	summary                *sstables.Summary
	indexPath, summaryPath string
	sample                 int
	entries                int64 // index entries seen
	blocks                 blockChecker
	entry                  IndexEntry
}

// Partition implements sorted.IndexVerifier.
func (v *indexVerifier) Partition(key []byte, pos, headerLength int64, deletion mutation.DeletionTime) (sorted.BlockVerifier, error) {
	e, err := v.it.next()
	if err == io.EOF {
		return nil, sstables.Corruptf(v.indexPath, string(sstables.ComponentIndex), -1, "no entry for the partition at Data.db offset %d", pos)
	}
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(e.Key, key) || e.Position != pos {
		return nil, sstables.Corruptf(v.indexPath, string(sstables.ComponentIndex), e.Offset,
			"entry (key %x, position %d) does not match Data.db's partition (key %x) at offset %d", e.Key, e.Position, key, pos)
	}
	if err := v.checkSample(&e); err != nil {
		return nil, err
	}
	if e.Promoted == nil {
		return nil, nil
	}
	v.entry = e
	v.blocks.reset(e.Promoted, v.indexPath, e.Offset)
	v.blocks.deletion = deletion
	return &v.blocks, nil
}

// checkSample matches the next summary entry against the index entry e.
func (v *indexVerifier) checkSample(e *IndexEntry) error {
	v.entries++
	s := v.summary
	if s == nil || v.sample >= s.Len() || s.IndexPosition(v.sample) != e.Offset {
		return nil
	}
	if !bytes.Equal(s.Key(v.sample), e.Key) {
		return sstables.Corruptf(v.summaryPath, string(sstables.ComponentSummary), -1,
			"entry %d has key %x, the Index.db entry at offset %d has %x", v.sample, s.Key(v.sample), e.Offset, e.Key)
	}
	if err := s.CheckSampleAt(v.sample, v.entries-1, v.summaryPath); err != nil {
		return err
	}
	v.sample++
	return nil
}

// End implements sorted.IndexVerifier: no entry after the last partition,
// every summary entry matched, the summary's first and last keys.
func (v *indexVerifier) End(first, last []byte, count int64) error {
	e, err := v.it.next()
	if err == nil {
		return sstables.Corruptf(v.indexPath, string(sstables.ComponentIndex), e.Offset, "entry for a partition at Data.db offset %d after Data.db's last partition", e.Position)
	}
	if err != io.EOF {
		return err
	}
	if s := v.summary; s != nil {
		if v.sample != s.Len() {
			return sstables.Corruptf(v.summaryPath, string(sstables.ComponentSummary), -1,
				"entry %d (Index.db position %d) matches no index entry in order", v.sample, s.IndexPosition(v.sample))
		}
		if err := s.CheckPartitionCount(v.entries, v.summaryPath); err != nil {
			return err
		}
		if !bytes.Equal(s.First, first) || !bytes.Equal(s.Last, last) {
			return sstables.Corruptf(v.summaryPath, string(sstables.ComponentSummary), -1, "first/last keys %x/%x differ from Data.db's %x/%x", s.First, s.Last, first, last)
		}
	}
	return nil
}

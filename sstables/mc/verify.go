package mc

import (
	"bytes"
	"errors"
	"io"
	"io/fs"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/sstables"
)

// Verify implements sstables.Reader. It checks, stopping at the first
// problem:
//   - that every component TOC.txt lists exists;
//   - every chunk checksum of Data.db (trailers or CRC.db) and the digest
//     file against the whole-file checksum (computed by combining the chunk
//     checksums);
//   - that Data.db decodes to its end (every partition, row and marker, with
//     every size consistent) and partitions are in token order;
//   - that Index.db decodes and names, in order, exactly the partitions of
//     Data.db with their positions, and that promoted index blocks lie
//     inside their partitions;
//   - the auxiliary components (Summary.db, Filter.db) where the sstables
//     package can parse them (see verifyAux).
//
// Statistics.db was parsed by Open.
func (r *Reader) Verify() error {
	if r.toc != nil && len(r.toc.Missing) > 0 {
		return sstables.Corruptf(r.desc.Path(sstables.ComponentTOC), string(sstables.ComponentTOC), -1, "lists %s, which does not exist", r.toc.Missing[0])
	}
	res, err := r.data.Verify()
	if err != nil {
		return err
	}
	digest, err := sstables.ReadDigest(r.fsys, r.desc, sstables.ComponentDigestCRC32)
	switch {
	case err == nil:
		if digest != res.Digest {
			return sstables.Corruptf(r.desc.Path(sstables.ComponentDigestCRC32), string(sstables.ComponentDigestCRC32), -1,
				"digest mismatch: file says %d, Data.db checksums to %d", digest, res.Digest)
		}
	case errors.Is(err, fs.ErrNotExist) && (r.toc == nil || !r.toc.Has(sstables.ComponentDigestCRC32)):
		// No digest to check.
	default:
		return err
	}
	if err := r.verifyRows(); err != nil {
		return err
	}
	return r.verifyAux()
}

// verifyRows decodes Data.db and Index.db side by side.
func (r *Reader) verifyRows() error {
	it, closer, err := r.openIndex(0, true)
	if err != nil {
		return err
	}
	defer closer.Close()
	sc := r.scanFrom(0)
	indexPath := r.desc.Path(sstables.ComponentIndex)
	dataPath := r.desc.Path(sstables.ComponentData)
	var prevKey []byte
	var prevToken int64
	first := true
	for {
		p, err := sc.NextPartition()
		e, ierr := it.next()
		if err == io.EOF {
			if ierr == nil {
				return sstables.Corruptf(indexPath, string(sstables.ComponentIndex), e.Offset, "entry for a partition at Data.db offset %d after Data.db's last partition", e.Position)
			}
			if ierr != io.EOF {
				return ierr
			}
			return nil
		}
		if err != nil {
			return err
		}
		if ierr == io.EOF {
			return sstables.Corruptf(indexPath, string(sstables.ComponentIndex), -1, "no entry for the partition at Data.db offset %d", sc.Position())
		}
		if ierr != nil {
			return ierr
		}
		if !bytes.Equal(e.Key, p.Key) || e.Position != sc.Position() {
			return sstables.Corruptf(indexPath, string(sstables.ComponentIndex), e.Offset,
				"entry (key %x, position %d) does not match Data.db's partition (key %x) at offset %d", e.Key, e.Position, p.Key, sc.Position())
		}
		if !first && dht.Compare(prevToken, prevKey, p.Token, p.Key) >= 0 {
			return sstables.Corruptf(dataPath, string(sstables.ComponentData), sc.Position(), "partition key %x out of token order", p.Key)
		}
		first = false
		prevKey = append(prevKey[:0], p.Key...)
		prevToken = p.Token
		start := sc.Position()
		for {
			row, m, err := sc.Next()
			if err != nil {
				return err
			}
			if row == nil && m == nil {
				break
			}
		}
		size := sc.dec.st.pos - start
		if pi := e.Promoted; pi != nil {
			next := pi.HeaderLength
			for i, b := range pi.Blocks {
				if b.Offset != next || b.Width <= 0 || b.Offset+b.Width > size {
					return sstables.Corruptf(indexPath, string(sstables.ComponentIndex), e.Offset,
						"promoted index block %d (offset %d, width %d) does not fit the partition of %d bytes", i, b.Offset, b.Width, size)
				}
				next = b.Offset + b.Width
			}
			if pi.Deletion != p.Deletion {
				return sstables.Corruptf(indexPath, string(sstables.ComponentIndex), e.Offset, "promoted index deletion differs from the partition's")
			}
		}
	}
}

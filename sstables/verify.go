package sstables

import (
	"errors"
	"io/fs"
	"slices"

	"github.com/castable-db/castable/checksummer"
	"github.com/castable-db/castable/compress"
)

// VerifyOptions configure VerifySSTable. The zero value of every field
// means the default given in its comment.
type VerifyOptions struct {
	// FS is the filesystem to read through; nil means the OS filesystem.
	FS FS
	// Checksummer computes the version's checksum; nil means the default
	// implementation.
	Checksummer checksummer.Checksummer
	// NewCompressor creates decompressors; nil means compress.NewCompressor.
	NewCompressor func(compress.Params) (compress.Compressor, error)
}

// VerifyReport is what VerifySSTable checked.
type VerifyReport struct {
	// TOC is the parsed TOC.txt (nil when the SSTable has none).
	TOC *TOC
	// Data is the result of the Data.db pass.
	Data *DataVerifyResult
	// DigestComponent is the digest file compared ("" when there is none).
	DigestComponent Component
	// Digest is the stored digest value.
	Digest uint32
	// PayloadOnlyDigest is set when the stored digest is the early-la
	// variant over the compressed payloads only.
	PayloadOnlyDigest bool
	// Summary and Filter are the parsed components (nil when absent).
	Summary *Summary
	Filter  *BloomFilter
}

// VerifySSTable checks the shared components of desc: that every
// component TOC.txt lists exists and every standard component that exists
// is listed, that CompressionInfo.db or CRC.db,
// Summary.db and Filter.db parse, that every Data.db chunk matches its
// checksum and decompresses to its length, and that the digest file matches
// the whole-file checksum computed by combining the chunk checksums (for
// versions before "ma" the early payload-only variant is accepted). The
// version packages add their own checks of Index.db, Statistics.db and the
// rows. The first problem is returned as a CorruptionError naming the file,
// component and offset.
func VerifySSTable(desc Descriptor, opts VerifyOptions) (*VerifyReport, error) {
	fsys := fsOrDefault(opts.FS)
	v := desc.Version
	alg := ChecksumAlgorithm(v)
	rep := &VerifyReport{}
	exists := func(c Component) bool {
		f, err := fsys.Open(desc.Path(c))
		if err != nil {
			return false
		}
		f.Close()
		return true
	}
	if exists(ComponentTOC) {
		toc, err := ReadTOC(fsys, desc)
		if err != nil {
			return rep, err
		}
		rep.TOC = toc
		if len(toc.Missing) > 0 {
			return rep, Corruptf(desc.Path(ComponentTOC), string(ComponentTOC), -1, "lists %v, which do not exist", toc.Missing)
		}
		unlisted, err := UnlistedComponents(fsys, desc, toc)
		if err != nil {
			return rep, err
		}
		if len(unlisted) > 0 {
			return rep, Corruptf(desc.Path(ComponentTOC), string(ComponentTOC), -1, "does not list %v, which exist", unlisted)
		}
	}
	has := func(c Component) bool {
		if rep.TOC != nil {
			return rep.TOC.Has(c)
		}
		return exists(c)
	}

	dr, err := OpenData(fsys, desc, DataReaderOptions{Algorithm: alg, Checksummer: opts.Checksummer, NewCompressor: opts.NewCompressor})
	if err != nil {
		return rep, err
	}
	defer dr.Close()
	if rep.TOC != nil && dr.CompressionInfo() == nil && !has(ComponentCRC) && slices.Contains(rep.TOC.Listed, ComponentCRC) {
		return rep, Corruptf(desc.Path(ComponentCRC), string(ComponentCRC), -1, "listed in TOC.txt but missing")
	}
	if rep.Data, err = dr.Verify(); err != nil {
		return rep, err
	}

	for _, c := range []Component{Component(v.DigestComponent()), ComponentDigestCRC32, ComponentDigestAdler32, ComponentDigestSHA1} {
		if has(c) {
			rep.DigestComponent = c
			break
		}
	}
	if rep.DigestComponent != "" {
		v, err := ReadDigest(fsys, desc, rep.DigestComponent)
		if err != nil {
			return rep, err
		}
		rep.Digest = v
		switch {
		case v == rep.Data.Digest:
		case alg == checksummer.Adler32 && dr.CompressionInfo() != nil && v == rep.Data.PayloadDigest:
			rep.PayloadOnlyDigest = true
		default:
			return rep, Corruptf(desc.Path(rep.DigestComponent), string(rep.DigestComponent), -1,
				"digest mismatch: the file holds %d, Data.db's %v checksum is %d", v, alg, rep.Data.Digest)
		}
	}

	if has(ComponentSummary) {
		if rep.Summary, err = ReadSummary(fsys, desc, SummaryReadOptions{DataCompressed: dr.CompressionInfo() != nil}); err != nil {
			return rep, err
		}
	}
	if has(ComponentFilter) {
		if rep.Filter, err = ReadBloomFilter(fsys, desc); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// isNotExist reports whether err says a file does not exist.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

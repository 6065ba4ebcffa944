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
	// Warn receives what is odd but read by the databases (see Warning);
	// nil drops the warnings.
	Warn WarnFunc
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

// VerifySSTable checks the shared components of desc: that TOC.txt parses
// and lists the components Cassandra needs to open the SSTable, that
// CompressionInfo.db or CRC.db, Summary.db and Filter.db parse, that every
// Data.db chunk matches its checksum and decompresses to its length, and
// that the digest file matches the whole-file checksum computed by
// combining the chunk checksums (for versions before "ma" the early
// payload-only variant is accepted). What Cassandra reads anyway — a
// component TOC.txt lists that is gone, an unlisted Summary.db, a missing
// digest, CRC.db checksums past the last chunk — goes to opts.Warn (see
// Warning). The version packages add their own checks of Index.db,
// Statistics.db and the rows. The first problem is returned as a
// CorruptionError naming the file, component and offset.
func VerifySSTable(desc Descriptor, opts VerifyOptions) (*VerifyReport, error) {
	fsys := fsOrDefault(opts.FS)
	v := desc.Version
	alg := ChecksumAlgorithm(v)
	rep := &VerifyReport{}
	warn := opts.Warn
	exists := func(c Component) bool {
		f, err := fsys.Open(desc.Path(c))
		if err != nil {
			return false
		}
		f.Close()
		return true
	}
	listed := func(c Component) bool { return rep.TOC != nil && slices.Contains(rep.TOC.Listed, c) }
	if exists(ComponentTOC) {
		toc, err := ReadTOC(fsys, desc)
		if err != nil {
			return rep, err
		}
		rep.TOC = toc
		var gone []Component
		for _, c := range toc.Missing {
			if IsCoreComponent(c) {
				gone = append(gone, c)
			}
		}
		if len(gone) > 0 {
			return rep, Corruptf(desc.Path(ComponentTOC), string(ComponentTOC), -1, "lists %v, which do not exist", gone)
		}
		unlisted, err := checkTOC(fsys, desc, toc, warn)
		if err != nil {
			return rep, err
		}
		if len(unlisted) > 0 {
			return rep, Corruptf(desc.Path(ComponentTOC), string(ComponentTOC), -1, "does not list %v, which exist: Cassandra does not open an SSTable without them (or reads Data.db as uncompressed)", unlisted)
		}
	} else {
		warn.Warnf(desc.Path(ComponentTOC), ComponentTOC, -1, "missing: the components are found by their file names, as Cassandra 3.x finds them when an SSTable has no TOC.txt")
	}

	dr, err := OpenData(fsys, desc, DataReaderOptions{Algorithm: alg, Checksummer: opts.Checksummer, NewCompressor: opts.NewCompressor, Warn: warn})
	if err != nil {
		return rep, err
	}
	defer dr.Close()
	if dr.CompressionInfo() == nil && dr.CRC() == nil && !listed(ComponentCRC) {
		warn.Warnf(desc.Path(ComponentCRC), ComponentCRC, -1, "missing: the chunks of the uncompressed Data.db cannot be checked (Cassandra's read path never consults CRC.db)")
	}
	if rep.Data, err = dr.Verify(); err != nil {
		return rep, err
	}

	// sstableverify checks the digest by its file name, whatever TOC.txt
	// lists.
	for _, c := range []Component{Component(v.DigestComponent()), ComponentDigestCRC32, ComponentDigestAdler32, ComponentDigestSHA1} {
		if exists(c) {
			rep.DigestComponent = c
			break
		}
	}
	if rep.DigestComponent == "" && !listed(Component(v.DigestComponent())) {
		warn.Warnf(desc.Path(Component(v.DigestComponent())), Component(v.DigestComponent()), -1, "missing: the whole-file digest cannot be checked (sstableverify: \"Data digest missing, assuming extended verification\")")
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

	// An index summary that does not parse fails sstableverify (4.0: "Index
	// summary is corrupt - if it is removed it will get rebuilt on
	// startup"), although reads rebuild it; a missing one is rebuilt at
	// open, by Cassandra and by castable's readers.
	if exists(ComponentSummary) {
		if rep.Summary, err = ReadSummary(fsys, desc, SummaryReadOptions{DataCompressed: dr.CompressionInfo() != nil}); err != nil {
			return rep, err
		}
	} else if exists(ComponentIndex) && !listed(ComponentSummary) {
		warn.Warnf(desc.Path(ComponentSummary), ComponentSummary, -1, "missing: %s", missingComponentEffect(ComponentSummary))
	}
	if exists(ComponentFilter) {
		if rep.Filter, err = ReadBloomFilter(fsys, desc); err != nil {
			return rep, err
		}
	} else if !listed(ComponentFilter) {
		warn.Warnf(desc.Path(ComponentFilter), ComponentFilter, -1, "missing: %s", missingComponentEffect(ComponentFilter))
	}
	return rep, nil
}

// isNotExist reports whether err says a file does not exist.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

package sstables

import (
	"errors"
	"io/fs"
	"slices"

	"github.com/castable-db/castable/schema"
)

// What every format's Open does with TOC.txt and Statistics.db, as
// Cassandra's SSTableReader.open does:
//
//   - TOC.txt names the components (SSTable.readTOC); one it lists that is
//     gone is logged and dropped ("Missing component"). Without TOC.txt
//     Cassandra 3.x finds the components in the directory
//     (discoverComponentsFor) and writes one. castable opens every
//     component by its file name whatever TOC.txt says, and reports each
//     of these as a Warning.
//   - A component TOC.txt does not list is not part of the SSTable for
//     Cassandra: without Data.db, Index.db or Statistics.db it cannot open
//     it, and without CompressionInfo.db it reads Data.db as uncompressed.
//     For those castable still reads the file (so that scrub can rescue the
//     data) and warns; Verify reports them as a CorruptionError. Any other
//     unlisted component (Summary.db, Filter.db, a digest, CRC.db) is only
//     a Warning.

// coreComponents are those without which Cassandra does not open an
// SSTable (or, for CompressionInfo.db, misreads it).
var coreComponents = []Component{ComponentData, ComponentIndex, ComponentPartitions, ComponentRows, ComponentStatistics, ComponentCompressionInfo}

// IsCoreComponent reports whether Cassandra needs c, when it exists, to
// read the SSTable (Data.db, Index.db or the BTI indexes, Statistics.db,
// CompressionInfo.db).
func IsCoreComponent(c Component) bool { return slices.Contains(coreComponents, c) }

// OpenTOC reads desc's TOC.txt for a reader, reporting through warn what
// it tolerates: no TOC.txt (nil is returned), components it lists that are
// gone, existing components it does not list. A TOC.txt that does not
// parse is a CorruptionError, as for Cassandra.
func OpenTOC(fsys FS, desc Descriptor, warn WarnFunc) (*TOC, error) {
	fsys = fsOrDefault(fsys)
	toc, err := ReadTOC(fsys, desc)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		warn.Warnf(desc.Path(ComponentTOC), ComponentTOC, -1, "missing: the components are found by their file names, as Cassandra 3.x finds them when an SSTable has no TOC.txt")
		return nil, nil
	case err != nil:
		return nil, err
	}
	if _, err := checkTOC(fsys, desc, toc, warn); err != nil {
		return nil, err
	}
	return toc, nil
}

// checkTOC reports what toc lists that is gone and what exists that it
// does not list. Listed components that are gone are warned about unless
// they are core components (whose absence the readers report when they
// open them); unlisted core components are returned (Verify refuses them,
// readers warn), other unlisted ones are warned about.
func checkTOC(fsys FS, desc Descriptor, toc *TOC, warn WarnFunc) (unlistedCore []Component, err error) {
	path := desc.Path(ComponentTOC)
	for _, c := range toc.Missing {
		if IsCoreComponent(c) {
			continue
		}
		warn.Warn(Warnf(path, ComponentTOC, -1, "lists %s, which does not exist: %s", c, missingComponentEffect(c)))
	}
	unlisted, err := UnlistedComponents(fsys, desc, toc)
	if err != nil {
		return nil, err
	}
	for _, c := range unlisted {
		if c == ComponentTOC {
			warn.Warn(Warnf(path, ComponentTOC, -1, "does not list itself, which no reader needs (Cassandra's writers list it)"))
			continue
		}
		if IsCoreComponent(c) {
			unlistedCore = append(unlistedCore, c)
			warn.Warn(Warnf(path, ComponentTOC, -1, "does not list %s, which exists: castable reads it, Cassandra does not open an SSTable whose TOC.txt omits it", c))
			continue
		}
		warn.Warn(Warnf(path, ComponentTOC, -1, "does not list %s, which exists: Cassandra ignores the file (sstableverify still checks a digest by its file name, as castable does)", c))
	}
	return unlistedCore, nil
}

// missingComponentEffect says what a reader does without component c.
func missingComponentEffect(c Component) string {
	switch c {
	case ComponentSummary:
		return "it is rebuilt from Index.db in memory for lookups, as Cassandra and ScyllaDB rebuild it at open (castable rebuild writes it)"
	case ComponentFilter:
		return "it is rebuilt from Index.db in memory for lookups, as Cassandra rebuilds the bloom filter at open (castable rebuild writes it)"
	case ComponentCRC:
		return "the chunks of the uncompressed Data.db cannot be checked (Cassandra's read path never consults CRC.db)"
	case ComponentDigestCRC32, ComponentDigestAdler32, ComponentDigestSHA1:
		return "the whole-file digest cannot be checked (sstableverify: \"Data digest missing, assuming extended verification\")"
	}
	return "Cassandra logs \"Missing component\" and drops it"
}

// ReadStatistics reads and decodes desc's Statistics.db through fsys,
// reporting each oddity the decoder tolerated (Statistics.Oddities)
// through opts.Warn; opts.OpaqueUnknownTypes says how to take a type
// castable does not know (else an *UnknownTypeError).
func ReadStatistics(fsys FS, desc Descriptor, opts ReaderOptions) (*Statistics, error) {
	path := desc.Path(ComponentStatistics)
	b, err := readWholeFile(fsOrDefault(fsys), path, ComponentStatistics, MaxStatisticsSize)
	if err != nil {
		return nil, err
	}
	st, err := DecodeStatisticsWith(b, desc.Version, path, schema.TypeOptions{OpaqueUnknownTypes: opts.OpaqueUnknownTypes})
	if err != nil {
		return nil, err
	}
	for _, o := range st.Oddities {
		opts.Warn.Warn(Warning{Path: path, Component: string(ComponentStatistics), Offset: -1, Reason: o})
	}
	return st, nil
}

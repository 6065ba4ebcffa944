package sstables

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/castable-db/castable/sstables/version"
)

// Component is the suffix that names one file of an SSTable.
type Component string

// The components of the BIG and BTI formats.
const (
	ComponentData            Component = "Data.db"
	ComponentIndex           Component = "Index.db"
	ComponentSummary         Component = "Summary.db"
	ComponentPartitions      Component = "Partitions.db"
	ComponentRows            Component = "Rows.db"
	ComponentFilter          Component = "Filter.db"
	ComponentStatistics      Component = "Statistics.db"
	ComponentCompressionInfo Component = "CompressionInfo.db"
	ComponentCRC             Component = "CRC.db"
	ComponentTOC             Component = "TOC.txt"
	ComponentDigestCRC32     Component = "Digest.crc32"
	ComponentDigestAdler32   Component = "Digest.adler32"
	ComponentDigestSHA1      Component = "Digest.sha1"
	ComponentScylla          Component = "Scylla.db"
)

// TempPrefix starts the name of every file a writer has not yet made
// visible ("tmp-mc-1-big-Data.db"), as Cassandra 2.2 names its temporary
// files. A crash leaves only such files, or final-named components without a
// TOC.txt; CleanupTemporary removes both.
const TempPrefix = "tmp-"

// Descriptor names one SSTable: its directory, format version and
// identifier. File names are "<version>-<id>-<kind>-<Component>", the kind
// being "big" or "bti" (version.Version.FileKind) and the identifier a
// generation number or, from Cassandra 4.1, a time-based UUID in base 36
// ("nb-3gll_1kke_3qdyo2i4kzfpt3cqcy-big-Data.db"). Cassandra 2.1 (ka) and
// older name them "<keyspace>-<table>-<version>-<generation>-<Component>"
// ("ks-users-ka-3-Data.db"; "ks-users-tmp-ka-3-Data.db" while being
// written); such a descriptor has Keyspace and Table set.
type Descriptor struct {
	Dir     string
	Version version.Version
	// Generation is the integer identifier; 0 when UUID is set.
	Generation int
	// UUID is the 28-character UUID-based identifier; empty for a
	// generation number.
	UUID string
	// Keyspace and Table are set for the pre-2.2 file names that start
	// with them (version.Version.LegacyFileName); empty otherwise.
	Keyspace, Table string
}

// ID returns the identifier as it appears in file names.
func (d Descriptor) ID() string {
	if d.UUID != "" {
		return d.UUID
	}
	return strconv.Itoa(d.Generation)
}

// Filename returns the file name of component c.
func (d Descriptor) Filename(c Component) string {
	return d.prefix() + "-" + string(c)
}

func (d Descriptor) prefix() string {
	if d.Keyspace != "" || d.Table != "" {
		return d.Keyspace + "-" + d.Table + "-" + d.Version.String() + "-" + d.ID()
	}
	return d.Version.String() + "-" + d.ID() + "-" + d.Version.FileKind()
}

// SameSSTable reports whether d and o name the same SSTable: identifier,
// and for the pre-2.2 names keyspace and table, whatever their versions
// and directories.
func (d Descriptor) SameSSTable(o Descriptor) bool {
	return d.SameID(o) && d.Keyspace == o.Keyspace && d.Table == o.Table
}

// Path returns the path of component c.
func (d Descriptor) Path(c Component) string {
	return filepath.Join(d.Dir, d.Filename(c))
}

// TempPath returns the path a writer uses for component c before the
// SSTable is made visible.
func (d Descriptor) TempPath(c Component) string {
	return filepath.Join(d.Dir, TempPrefix+d.Filename(c))
}

// String returns the path prefix shared by the components.
func (d Descriptor) String() string {
	return filepath.Join(d.Dir, d.prefix())
}

// SameID reports whether d and o have the same identifier (whatever their
// versions and directories).
func (d Descriptor) SameID(o Descriptor) bool {
	return d.Generation == o.Generation && strings.EqualFold(d.UUID, o.UUID)
}

// ParseDescriptor parses the path of any component of an SSTable
// ("dir/mc-5-big-Data.db") into its descriptor and component. A temporary
// name (TempPrefix) is reported with temp set. The version must be one
// castable knows and the kind the one its files carry.
func ParseDescriptor(path string) (d Descriptor, c Component, temp bool, err error) {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	d.Dir = filepath.Clean(dir)
	if strings.HasPrefix(name, TempPrefix) {
		temp = true
		name = name[len(TempPrefix):]
	}
	if d, c, legacyTemp, ok := parseLegacyName(d, name); ok {
		return d, c, temp || legacyTemp, nil
	}
	parts := strings.SplitN(name, "-", 4)
	if len(parts) != 4 || (parts[2] != "big" && parts[2] != "bti") || len(parts[0]) != 2 {
		return d, "", temp, fmt.Errorf("%s: not an SSTable component name (want <version>-<id>-big-<Component>, …-bti-…, or <keyspace>-<table>-<version>-<generation>-<Component> for %s)", path, version.Summarize(version.Select(version.Version.LegacyFileName)))
	}
	if d.Version, err = version.Parse(parts[0]); err != nil {
		return d, "", temp, fmt.Errorf("%s: %w", path, err)
	}
	if kind := d.Version.FileKind(); parts[2] != kind {
		return d, "", temp, fmt.Errorf("%s: version %s SSTables are named %s, not %s", path, parts[0], kind, parts[2])
	}
	if err := d.parseID(parts[1]); err != nil {
		return d, "", temp, fmt.Errorf("%s: %w", path, err)
	}
	return d, Component(parts[3]), temp, nil
}

// parseID sets the identifier from its text: the UUID form first, then a
// generation number, as Cassandra's SSTableIdFactory tries them.
func (d *Descriptor) parseID(s string) error {
	if _, err := ParseUUIDID(s); err == nil {
		d.UUID = strings.ToLower(s)
		return nil
	}
	gen, err := strconv.Atoi(s)
	if err != nil || gen <= 0 || len(s) > 10 {
		return fmt.Errorf("bad SSTable identifier %q (want a generation number or a UUID-based identifier)", s)
	}
	d.Generation = gen
	return nil
}

// parseLegacyName parses the pre-2.2 file name of Cassandra's
// Descriptor.fromFilename: "<keyspace>-<table>[-tmp|-tmplink]-<version>-
// <generation>-<Component>", for the versions that use it. Keyspace and
// table names hold no '-' ([A-Za-z0-9_]; a secondary index table adds
// ".<index>").
func parseLegacyName(d Descriptor, name string) (Descriptor, Component, bool, bool) {
	parts := strings.Split(name, "-")
	temp := false
	switch {
	case len(parts) == 6 && (parts[2] == "tmp" || parts[2] == "tmplink"):
		temp = true
		parts = append(parts[:2], parts[3:]...)
	case len(parts) != 5:
		return d, "", false, false
	}
	if parts[0] == "" || parts[1] == "" || parts[4] == "" || len(parts[2]) != 2 {
		return d, "", false, false
	}
	v, err := version.Parse(parts[2])
	if err != nil || !v.LegacyFileName() {
		return d, "", false, false
	}
	gen, err := strconv.Atoi(parts[3])
	if err != nil || gen <= 0 || len(parts[3]) > 10 {
		return d, "", false, false
	}
	d.Version, d.Generation, d.Keyspace, d.Table = v, gen, parts[0], parts[1]
	return d, Component(parts[4]), temp, true
}

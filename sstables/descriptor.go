package sstables

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Component is the suffix that names one file of an SSTable.
type Component string

// The components of the BIG format (la and mc).
const (
	ComponentData            Component = "Data.db"
	ComponentIndex           Component = "Index.db"
	ComponentSummary         Component = "Summary.db"
	ComponentFilter          Component = "Filter.db"
	ComponentStatistics      Component = "Statistics.db"
	ComponentCompressionInfo Component = "CompressionInfo.db"
	ComponentCRC             Component = "CRC.db"
	ComponentTOC             Component = "TOC.txt"
	ComponentDigestCRC32     Component = "Digest.crc32"
	ComponentDigestAdler32   Component = "Digest.adler32"
	ComponentDigestSHA1      Component = "Digest.sha1"
)

// TempPrefix starts the name of every file a writer has not yet made
// visible ("tmp-mc-1-big-Data.db"), as Cassandra 2.2 names its temporary
// files. A crash leaves only such files, or final-named components without a
// TOC.txt; CleanupTemporary removes both.
const TempPrefix = "tmp-"

// Descriptor names one SSTable: its directory, format version and
// generation. File names are "<version>-<generation>-big-<Component>".
type Descriptor struct {
	Dir        string
	Version    string
	Generation int
}

// Filename returns the file name of component c.
func (d Descriptor) Filename(c Component) string {
	return d.Version + "-" + strconv.Itoa(d.Generation) + "-big-" + string(c)
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
	return filepath.Join(d.Dir, d.Version+"-"+strconv.Itoa(d.Generation)+"-big")
}

// ParseDescriptor parses the path of any component of an SSTable
// ("dir/mc-5-big-Data.db") into its descriptor and component. A temporary
// name (TempPrefix) is reported with temp set.
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
	parts := strings.SplitN(name, "-", 4)
	if len(parts) != 4 || parts[2] != "big" || len(parts[0]) != 2 {
		return d, "", temp, fmt.Errorf("%s: not an SSTable component name (want <version>-<generation>-big-<Component>)", path)
	}
	gen, err := strconv.Atoi(parts[1])
	if err != nil || gen <= 0 {
		return d, "", temp, fmt.Errorf("%s: bad generation %q", path, parts[1])
	}
	d.Version = parts[0]
	d.Generation = gen
	return d, Component(parts[3]), temp, nil
}

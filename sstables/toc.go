package sstables

import (
	"bytes"
	"slices"
	"strings"

	"github.com/castable-db/castable/sstables/version"
)

// TOC.txt layout: ASCII text, one component suffix per line, every line
// terminated by '\n' (Cassandra's PrintWriter.println on Linux). The file
// lists itself. There is no header, count or checksum, and the order is not
// defined (Cassandra iterates a HashSet), so readers treat the content as a
// set and tolerate "\r\n" line ends and blank lines.
//
// castable writes the components in canonicalComponentOrder, then any
// other component sorted by name — or, for the versions whose writer
// release lists them in a fixed order (Cassandra 5.0: Profile.OrderedTOC),
// in that order (cassandra50ComponentOrder).
var canonicalComponentOrder = []Component{
	ComponentData,
	ComponentIndex,
	ComponentStatistics,
	ComponentSummary,
	ComponentFilter,
	ComponentCompressionInfo,
	ComponentCRC,
	ComponentDigestCRC32,
	ComponentDigestAdler32,
	ComponentDigestSHA1,
	ComponentTOC,
}

// cassandra50ComponentOrder is the order Cassandra 5.0 lists components in
// (the oa and da files of the shared data: Data.db, Statistics.db,
// Digest.crc32, TOC.txt, CompressionInfo.db, Filter.db, then the index
// components). Where CRC.db goes is not shown by any file; it is put with
// CompressionInfo.db, which it replaces.
var cassandra50ComponentOrder = []Component{
	ComponentData,
	ComponentStatistics,
	ComponentDigestCRC32,
	ComponentTOC,
	ComponentCompressionInfo,
	ComponentCRC,
	ComponentFilter,
	ComponentIndex,
	ComponentSummary,
	ComponentPartitions,
	ComponentRows,
}

// maxTOCSize bounds the TOC.txt a reader accepts.
const maxTOCSize = 64 << 10

// SortComponents sorts cs into castable's canonical order, removing
// duplicates.
func SortComponents(cs []Component) []Component {
	rank := func(c Component) int {
		if i := slices.Index(canonicalComponentOrder, c); i >= 0 {
			return i
		}
		return len(canonicalComponentOrder)
	}
	slices.SortFunc(cs, func(a, b Component) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(string(a), string(b))
	})
	return slices.Compact(cs)
}

// AppendTOC appends the TOC.txt content listing cs (TOC.txt itself is added
// when missing) in canonical order.
func AppendTOC(dst []byte, cs []Component) []byte {
	all := append(slices.Clone(cs), ComponentTOC)
	for _, c := range SortComponents(all) {
		dst = append(dst, c...)
		dst = append(dst, '\n')
	}
	return dst
}

// AppendVersionTOC is AppendTOC in the order version v's writer lists
// components.
func AppendVersionTOC(dst []byte, cs []Component, v version.Version) []byte {
	if !v.Profile().OrderedTOC {
		return AppendTOC(dst, cs)
	}
	all := SortComponents(append(slices.Clone(cs), ComponentTOC))
	rank := func(c Component) int {
		if i := slices.Index(cassandra50ComponentOrder, c); i >= 0 {
			return i
		}
		return len(cassandra50ComponentOrder)
	}
	slices.SortStableFunc(all, func(a, b Component) int { return rank(a) - rank(b) })
	for _, c := range all {
		dst = append(dst, c...)
		dst = append(dst, '\n')
	}
	return dst
}

// AppendOrderedTOC is AppendVersionTOC, except that the components of
// order come first, in that order (the order a writer release that
// iterates a hash set listed them in an input, carried over by CarryOver:
// WriterOptions.TOCOrder); order's components that are not in cs are left
// out, cs's that are not in order follow in v's order.
func AppendOrderedTOC(dst []byte, cs []Component, order []Component, v version.Version) []byte {
	if len(order) == 0 {
		return AppendVersionTOC(dst, cs, v)
	}
	all := append(slices.Clone(cs), ComponentTOC)
	var rest []Component
	for _, c := range SortComponents(all) {
		if !slices.Contains(order, c) {
			rest = append(rest, c)
		}
	}
	seen := map[Component]bool{}
	for _, c := range order {
		if slices.Contains(all, c) && !seen[c] {
			seen[c] = true
			dst = append(dst, c...)
			dst = append(dst, '\n')
		}
	}
	if len(rest) == 0 {
		return dst
	}
	tail := AppendVersionTOC(nil, rest, v)
	// AppendVersionTOC adds TOC.txt itself; keep it only when order lacks it.
	for _, line := range strings.SplitAfter(string(tail), "\n") {
		if line == "" || (seen[ComponentTOC] && line == string(ComponentTOC)+"\n") {
			continue
		}
		dst = append(dst, line...)
	}
	return dst
}

// TOCReader is implemented by the readers that keep the TOC.txt they
// opened (nil when the SSTable had none).
type TOCReader interface {
	TOC() *TOC
}

// ParseTOC parses TOC.txt content into its set of components (first
// occurrence order, duplicates removed). path names the file in errors.
func ParseTOC(b []byte, path string) ([]Component, error) {
	if len(b) > maxTOCSize {
		return nil, Corruptf(path, string(ComponentTOC), -1, "file of %d bytes is larger than %d", len(b), maxTOCSize)
	}
	var out []Component
	off := 0
	for len(b) > 0 {
		line := b
		next := len(b)
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line = b[:i]
			next = i + 1
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) > 0 {
			for i, c := range line {
				if c < 0x20 || c >= 0x7f || c == '/' || c == '\\' {
					return nil, Corruptf(path, string(ComponentTOC), int64(off+i), "invalid byte 0x%02x in a component name", c)
				}
			}
			c := Component(line)
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
		off += next
		b = b[next:]
	}
	if len(out) == 0 {
		return nil, Corruptf(path, string(ComponentTOC), 0, "no components listed")
	}
	return out, nil
}

// TOC is an SSTable's TOC.txt as found on disk.
type TOC struct {
	// Listed are the components TOC.txt names (TOC.txt included).
	Listed []Component
	// Present are the listed components whose file exists.
	Present []Component
	// Missing are the listed components whose file does not exist;
	// Cassandra logs and skips them, Verify reports them.
	Missing []Component
}

// Has reports whether component c is listed and present.
func (t *TOC) Has(c Component) bool { return slices.Contains(t.Present, c) }

// ReadTOC reads desc's TOC.txt and checks which listed components exist.
func ReadTOC(fsys FS, desc Descriptor) (*TOC, error) {
	fsys = fsOrDefault(fsys)
	path := desc.Path(ComponentTOC)
	b, err := readWholeFile(fsys, path, ComponentTOC, maxTOCSize)
	if err != nil {
		return nil, err
	}
	listed, err := ParseTOC(b, path)
	if err != nil {
		return nil, err
	}
	names, err := fsys.ReadDir(desc.Dir)
	if err != nil {
		return nil, err
	}
	toc := &TOC{Listed: listed}
	for _, c := range listed {
		if slices.Contains(names, desc.Filename(c)) {
			toc.Present = append(toc.Present, c)
		} else {
			toc.Missing = append(toc.Missing, c)
		}
	}
	return toc, nil
}

package sstables

import (
	"errors"
	"github.com/castable-db/castable/sstables/version"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
)

// copySSTable copies every file of src's folder that belongs to src into a
// new temporary folder and returns the copy's descriptor.
func copySSTable(t *testing.T, src Descriptor) Descriptor {
	t.Helper()
	dst := src
	dst.Dir = t.TempDir()
	entries, err := os.ReadDir(src.Dir)
	if err != nil {
		t.Fatal(err)
	}
	prefix := src.Filename("")
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src.Dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst.Dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestVerifyTOCMustListEveryComponent: a TOC.txt that lost lines must not
// hide a component from Verify. Before the check, a TOC.txt truncated
// before its Digest.crc32 line let the deliberately wrong digest of
// integrity_check/invalid_digest pass.
func TestVerifyTOCMustListEveryComponent(t *testing.T) {
	src := Descriptor{Dir: testdata.Path(t, "cassandra", "3.x", "uncompressed", "integrity_check", "invalid_digest"), Version: version.MustParse("me"), Generation: 1}
	d := copySSTable(t, src)
	toc, err := os.ReadFile(d.Path(ComponentTOC))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(strings.TrimSpace(string(toc)), "\n") {
		if line != string(ComponentDigestCRC32) {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(d.Path(ComponentTOC), []byte(strings.Join(kept, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = VerifySSTable(d, VerifyOptions{})
	var ce *CorruptionError
	if !errors.As(err, &ce) || ce.Component != string(ComponentTOC) || !strings.Contains(err.Error(), "Digest.crc32") {
		t.Fatalf("TOC.txt without its Digest.crc32 line: got %v, want a TOC.txt CorruptionError naming Digest.crc32", err)
	}
}

// TestCRCCountMismatchNamesDataFile: a Data.db whose size does not match
// CRC.db's number of checksums is reported against Data.db (the path and
// the component agree), at the offset of the first chunk the two disagree
// on (here chunk 1, which CRC.db has and the truncated file lacks).
func TestCRCCountMismatchNamesDataFile(t *testing.T) {
	src := Descriptor{Dir: testdata.Path(t, "cassandra", "3.x", "uncompressed", "integrity_check", "invalid_checksums"), Version: version.MustParse("me"), Generation: 1}
	d := copySSTable(t, src)
	data, err := os.ReadFile(d.Path(ComponentData))
	if err != nil || len(data) <= CRCChunkSize {
		t.Fatalf("want a Data.db of more than one CRC chunk: %d bytes, %v", len(data), err)
	}
	if err := os.WriteFile(d.Path(ComponentData), data[:CRCChunkSize-1], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = OpenData(nil, d, DataReaderOptions{})
	var ce *CorruptionError
	if !errors.As(err, &ce) || ce.Component != string(ComponentData) || ce.Path != d.Path(ComponentData) || ce.Offset != CRCChunkSize {
		t.Fatalf("truncated Data.db: got %#v, want a Data.db CorruptionError at offset 65536", err)
	}
}

// TestUnknownCompressorNamesCompressionInfo: a CompressionInfo.db whose
// compressor class is unknown is reported with CompressionInfo.db's path,
// not Data.db's (found by FuzzSSTableComponent).
func TestUnknownCompressorNamesCompressionInfo(t *testing.T) {
	src := Descriptor{Dir: testdata.Path(t, "cassandra", "3.x", "lz4", "partition_key_with_values_of_different_types"), Version: version.MustParse("mc"), Generation: 1}
	d := copySSTable(t, src)
	ci, err := os.ReadFile(d.Path(ComponentCompressionInfo))
	if err != nil {
		t.Fatal(err)
	}
	ci[2] ^= 0x01 // "LZ4Compressor" -> "MZ4Compressor"
	if err := os.WriteFile(d.Path(ComponentCompressionInfo), ci, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = OpenData(nil, d, DataReaderOptions{})
	var ce *CorruptionError
	if !errors.As(err, &ce) || ce.Component != string(ComponentCompressionInfo) || ce.Path != d.Path(ComponentCompressionInfo) {
		t.Fatalf("unknown compressor: got %#v, want a CorruptionError with CompressionInfo.db's path", err)
	}
}

// TestSummaryTrailerModes: the la Summary.db trailer names a disk access
// mode per file, "mmap" or "standard"; any other name is damage (it used to
// be taken as a mode without boundaries, the rest ignored as trailing
// bytes).
func TestSummaryTrailerModes(t *testing.T) {
	b, err := os.ReadFile(testdata.Path(t, "cassandra", "compressed", "la-1-big-Summary.db"))
	if err != nil {
		t.Fatal(err)
	}
	opts := SummaryReadOptions{Boundaries: true, DataCompressed: true}
	s, err := ParseSummary(b, "x", opts)
	if err != nil || s.Boundaries == nil || s.Boundaries.IndexMode != DiskAccessMmap {
		t.Fatalf("undamaged: %+v, %v", s, err)
	}
	i := strings.LastIndex(string(b), DiskAccessMmap)
	b[i] ^= 0x01 // "mmap" -> "lmap"
	if _, err := ParseSummary(b, "x", opts); !errors.Is(err, ErrCorrupt) {
		t.Fatalf(`disk access mode "lmap": got %v, want a CorruptionError`, err)
	}
}

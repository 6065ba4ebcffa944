package version

import (
	"strings"
	"testing"
)

// TestPredicates pins every predicate to the version letters: a column per
// version, in table order, "x" where the predicate holds (BigVersion's and
// BtiVersion's flags as Cassandra 5.0 evaluates them for what each version
// wrote; modern-formats.md §1.2).
func TestPredicates(t *testing.T) {
	names := "ka la lb ma mb mc md me na nb nc oa da ms mt"
	cases := []struct {
		name string
		pred func(Version) bool
		want string
	}{
		{"Writable", Version.Writable, "-  x  -  x  x  x  x  x  x  x  x  x  x  x  x"},
		{"LegacyFileName", Version.LegacyFileName, "x  -  -  -  -  -  -  -  -  -  -  -  -  -  -"},
		{"LegacyCells", Version.LegacyCells, "x  x  x  -  -  -  -  -  -  -  -  -  -  -  -"},
		{"Tries", Version.Tries, "-  -  -  -  -  -  -  -  -  -  -  -  x  x  x"},
		{"Scylla", Version.Scylla, "-  -  -  -  -  -  -  -  -  -  -  -  -  x  x"},
		{"AdlerChecksums", Version.AdlerChecksums, "x  x  x  -  -  -  -  -  -  -  -  -  -  -  -"},
		{"OldBloomHashOrder", Version.OldBloomHashOrder, "x  x  x  -  -  -  -  -  -  -  -  -  -  -  -"},
		{"OldBloomFilterFormat", Version.OldBloomFilterFormat, "x  x  x  x  x  x  x  x  -  -  -  -  -  x  x"},
		{"SummaryBoundaries", Version.SummaryBoundaries, "x  x  x  -  -  -  -  -  -  -  -  -  -  -  -"},
		{"CompactionAncestors", Version.CompactionAncestors, "x  x  x  -  -  -  -  -  -  -  -  -  -  -  -"},
		{"HasCommitLogLowerBound", Version.HasCommitLogLowerBound, "-  -  x  -  x  x  x  x  x  x  x  x  x  x  x"},
		{"HasCommitLogIntervals", Version.HasCommitLogIntervals, "-  -  -  -  -  x  x  x  x  x  x  x  x  x  x"},
		{"HasAccurateMinMax", Version.HasAccurateMinMax, "-  -  -  -  -  -  x  x  x  x  x  -  x  x  x"},
		{"HasLegacyMinMax", Version.HasLegacyMinMax, "x  x  x  x  x  x  x  x  x  x  x  -  -  x  x"},
		{"HasOriginatingHostID", Version.HasOriginatingHostID, "-  -  -  -  -  -  -  x  -  x  x  x  x  x  x"},
		{"HasMaxCompressedLength", Version.HasMaxCompressedLength, "-  -  -  -  -  -  -  -  x  x  x  x  x  -  -"},
		{"HasPendingRepair", Version.HasPendingRepair, "-  -  -  -  -  -  -  -  x  x  x  x  x  -  -"},
		{"HasIsTransient", Version.HasIsTransient, "-  -  -  -  -  -  -  -  x  x  x  x  x  -  -"},
		{"HasMetadataChecksum", Version.HasMetadataChecksum, "-  -  -  -  -  -  -  -  x  x  x  x  x  -  -"},
		{"HasImprovedMinMax", Version.HasImprovedMinMax, "-  -  -  -  -  -  -  -  -  -  -  x  x  -  -"},
		{"HasTrailingImprovedMinMax", Version.HasTrailingImprovedMinMax, "-  -  -  -  -  -  -  -  -  -  x  -  -  -  -"},
		{"HasPartitionLevelDeletionsPresenceMarker", Version.HasPartitionLevelDeletionsPresenceMarker, "-  -  -  -  -  -  -  -  -  -  x  x  x  -  -"},
		{"HasKeyRange", Version.HasKeyRange, "-  -  -  -  -  -  -  -  -  -  x  x  x  -  -"},
		{"UIntDeletionTime", Version.UIntDeletionTime, "-  -  -  -  -  -  -  -  -  -  -  x  x  -  -"},
		{"HasTokenSpaceCoverage", Version.HasTokenSpaceCoverage, "-  -  -  -  -  -  -  -  -  -  -  x  x  -  -"},
		{"HasVectorType", Version.HasVectorType, "-  -  -  -  -  -  -  -  -  x  x  x  x  x  x"},
		// Which Cassandra releases read and write each version (BigFormat's
		// isCompatible and current_version of 3.11.17 and 5.0, BtiFormat's).
		{"ReadBy(3.11)", readBy("3.11"), "x  x  x  x  x  x  x  x  -  -  -  -  -  -  -"},
		{"ReadBy(5.0)", readBy("5.0"), "-  -  -  x  x  x  x  x  x  x  x  x  x  -  -"},
		{"WrittenBy(3.11)", writtenBy("3.11"), "-  -  -  -  -  -  -  x  -  -  -  -  -  -  -"},
		{"WrittenBy(5.0)", writtenBy("5.0"), "-  -  -  -  -  -  -  -  -  x  -  x  x  -  -"},
	}
	if got := strings.Join(Names(), " "); got != names {
		t.Fatalf("versions %q, want %q", got, names)
	}
	all := All()
	for _, c := range cases {
		marks := strings.Fields(c.want)
		if len(marks) != len(all) {
			t.Fatalf("%s: %d marks for %d versions", c.name, len(marks), len(all))
		}
		for i, v := range all {
			if got := c.pred(v); got != (marks[i] == "x") {
				t.Errorf("%s(%s) = %v", c.name, v, got)
			}
		}
	}
}

func readBy(release string) func(Version) bool {
	return func(v Version) bool { return v.ReadBy(release) }
}

func writtenBy(release string) func(Version) bool {
	return func(v Version) bool { return v.WrittenBy(release) }
}

// TestFamilies pins the package that serves each version and what a
// read-only version is rewritten as, and that both agree with the format
// flags.
func TestFamilies(t *testing.T) {
	want := map[string]string{
		"ka": "2.x cells > la", "la": "2.x cells", "lb": "2.x cells > la",
		"ma": "big", "mb": "big", "mc": "big", "md": "big", "me": "big", "na": "big", "nb": "big", "nc": "big", "oa": "big",
		"da": "bti", "ms": "bti", "mt": "bti",
	}
	if len(want) != len(All()) {
		t.Fatalf("%d rows for %d versions", len(want), len(All()))
	}
	for _, v := range All() {
		got := v.Family().String()
		if w := v.WriteAs(); w != v {
			got += " > " + w.String()
		}
		if got != want[v.String()] {
			t.Errorf("%s: %q, want %q", v, got, want[v.String()])
		}
		if (v.Family() == Cells2x) != v.LegacyCells() || (v.Family() == BTI) != v.Tries() {
			t.Errorf("%s: family %s disagrees with LegacyCells %v, Tries %v", v, v.Family(), v.LegacyCells(), v.Tries())
		}
		if w := v.WriteAs(); !w.Writable() || w.Family() != v.Family() {
			t.Errorf("%s is written as %s, which castable does not write or of another family", v, w)
		}
	}
	var n int
	for _, f := range []Family{Cells2x, Big, BTI} {
		n += len(OfFamily(f))
	}
	if n != len(All()) {
		t.Errorf("the families hold %d versions of %d", n, len(All()))
	}
	d := MustParse(Default)
	if !d.Writable() || !d.WrittenBy("5.0") || d.Family() != Big {
		t.Errorf("default %s: writable %v, written by 5.0 %v", d, d.Writable(), d.WrittenBy("5.0"))
	}
	if got := strings.Join(Releases(), " "); got != "3.11 5.0" {
		t.Errorf("releases %s", got)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("ReadBy of an unknown release did not panic")
			}
		}()
		d.ReadBy("4")
	}()
}

func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		keep func(Version) bool
		want string
	}{
		{Version.Writable, "la, ma … oa, da, ms, mt"},
		{func(Version) bool { return true }, "ka, la, lb, ma … oa, da, ms, mt"},
		{readBy("3.11"), "ka, la, lb, ma … me"},
		{readBy("5.0"), "ma … oa, da"},
		{writtenBy("5.0"), "nb, oa, da"},
		{Version.HasMaxCompressedLength, "na … oa, da"},
		{Version.UIntDeletionTime, "oa, da"},
		{func(v Version) bool { return false }, ""},
	} {
		if got := Summarize(Select(c.keep)); got != c.want {
			t.Errorf("Summarize = %q, want %q", got, c.want)
		}
	}
}

func TestDetails(t *testing.T) {
	digests := map[string]string{"ka": "Digest.sha1", "la": "Digest.adler32", "lb": "Digest.adler32", "ma": "Digest.crc32", "oa": "Digest.crc32", "da": "Digest.crc32"}
	for name, want := range digests {
		if got := MustParse(name).DigestComponent(); got != want {
			t.Errorf("%s digest %s, want %s", name, got, want)
		}
	}
	for name, want := range map[string]string{"oa": "big", "da": "bti", "ms": "big", "la": "big"} {
		if got := MustParse(name).FileKind(); got != want {
			t.Errorf("%s file kind %s, want %s", name, got, want)
		}
	}
	// Histogram lengths and chunk lengths by writer release
	// (modern-formats.md §1.3, from the legacy files).
	for _, c := range []struct {
		name                 string
		partitions, cells    int
		chunk, maxBins       int
		sentinel, orderedTOC bool
	}{
		{"ma", 150, 114, 64 << 10, 100, true, false},
		{"mb", 150, 114, 64 << 10, 100, true, false},
		{"mc", 150, 114, 64 << 10, 100, false, false}, // 3.0.8+/3.11 habits; the legacy mc file, of an earlier writer, differs (InferProfile)
		{"md", 150, 118, 64 << 10, 100, false, false},
		{"me", 150, 118, 64 << 10, 100, false, false},
		{"na", 150, 114, 64 << 10, 0, false, false},
		{"nb", 150, 118, 16 << 10, 0, false, false},
		{"oa", 155, 118, 16 << 10, 0, false, true},
		{"da", 155, 118, 16 << 10, 0, false, true},
	} {
		p := MustParse(c.name).Profile()
		if p.PartitionSizeBuckets != c.partitions || p.CellCountBuckets != c.cells || p.DefaultChunkLength != c.chunk ||
			p.TombstoneMaxBins != c.maxBins || p.SentinelTombstoneBin != c.sentinel || p.OrderedTOC != c.orderedTOC {
			t.Errorf("%s profile %+v", c.name, p)
		}
	}
	// The LZ4 each release bundles (lz4-java 1.2.0: r100; 1.3.0 and 1.4.x:
	// r123; 1.7.1 and 1.8.0: LZ4 1.9).
	lz4 := map[LZ4Encoder]string{LZ4R100: "r100", LZ4R123: "r123", LZ4Current: "current"}
	var got []string
	for _, v := range All() {
		got = append(got, v.String()+"="+lz4[v.Profile().LZ4])
	}
	if want := "ka=r100 la=r123 lb=r123 ma=r123 mb=r123 mc=r123 md=r123 me=r123 na=r123 nb=current nc=current oa=current da=current ms=current mt=current"; strings.Join(got, " ") != want {
		t.Errorf("LZ4 encoders\n%s, want\n%s", strings.Join(got, " "), want)
	}
	// The live-cell bin counts the row livenesses too from mb on (the
	// early mc writers that have the bin), not in ma.
	for name, want := range map[string]bool{"ma": false, "mb": true, "mc": true} {
		if got := MustParse(name).Profile().SentinelCountsLiveness; got != want {
			t.Errorf("%s SentinelCountsLiveness %v, want %v", name, got, want)
		}
	}
	if _, err := Parse("zz"); err == nil || !strings.Contains(err.Error(), "oa") {
		t.Errorf("Parse(zz) = %v", err)
	}
	for _, c := range []struct {
		name  string
		major int
		want  bool
	}{{"mc", 4, false}, {"mc", 3, true}, {"nb", 4, true}, {"nb", 5, false}, {"oa", 5, true}, {"da", 5, true}} {
		if got := MustParse(c.name).StreamsTo(c.major); got != c.want {
			t.Errorf("%s.StreamsTo(%d) = %v", c.name, c.major, got)
		}
	}
}

package bulk

import (
	"encoding/csv"
	"io"
	"slices"
	"strings"
	"testing"
)

// readAllCSV reads every record with castable's reader (copying fields).
func readAllCSV(in string, comma byte) ([][]string, error) {
	r := newCSVReader(strings.NewReader(in), comma)
	var out [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		cp := make([]string, len(rec))
		for i, f := range rec {
			cp[i] = strings.Clone(f)
		}
		out = append(out, cp)
	}
}

// readAllStd reads every record with encoding/csv.
func readAllStd(in string, comma byte) ([][]string, error) {
	r := csv.NewReader(strings.NewReader(in))
	r.Comma = rune(comma)
	r.FieldsPerRecord = -1
	return r.ReadAll()
}

var csvCases = []string{
	"a,b,c\n1,2,3\n",
	"a,b,c",
	"a,,c\n,,\n",
	"\n\na\n\n\nb\r\n\r\nc",
	`"quoted, comma","with ""quotes""",plain` + "\n",
	"\"multi\nline\",x\n",
	"\"multi\r\nline\",x\r\n",
	"\"\",\"\"\n",
	"a,\"b\"\n",
	"a,\"b\",\n",
	"x\"y,z\n",
	"\"unterminated\n",
	"\"a\"b,c\n",
	" \"a\",b\n",
	"a;b;\"c;d\"\n",
	strings.Repeat("long", 100000) + ",x\n",
	"\"" + strings.Repeat("q\n", 1000) + "\",end\n",
}

// TestCSVReaderMatchesEncodingCSV: castable's allocation-free reader gives
// the records encoding/csv gives, and fails where it fails.
func TestCSVReaderMatchesEncodingCSV(t *testing.T) {
	for _, in := range csvCases {
		for _, comma := range []byte{',', ';'} {
			want, werr := readAllStd(in, comma)
			got, gerr := readAllCSV(in, comma)
			if (werr != nil) != (gerr != nil) {
				t.Errorf("%.40q (comma %q): error %v, encoding/csv %v", in, comma, gerr, werr)
				continue
			}
			if werr == nil && !slices.EqualFunc(got, want, slices.Equal[[]string]) {
				t.Errorf("%.40q (comma %q):\n got %q\nwant %q", in, comma, got, want)
			}
		}
	}
}

// TestCSVReaderLines: records carry the line they start on.
func TestCSVReaderLines(t *testing.T) {
	r := newCSVReader(strings.NewReader("a\n\n\"b\nc\"\nd\n"), ',')
	var lines []int
	for {
		if _, err := r.Read(); err != nil {
			break
		}
		lines = append(lines, r.line)
	}
	if !slices.Equal(lines, []int{1, 3, 5}) {
		t.Errorf("record lines %v, want [1 3 5]", lines)
	}
}

// FuzzCSVReader cross-checks the reader against encoding/csv.
func FuzzCSVReader(f *testing.F) {
	for _, c := range csvCases {
		if len(c) < 1000 {
			f.Add(c)
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		want, werr := readAllStd(in, ',')
		got, gerr := readAllCSV(in, ',')
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("%q: error %v, encoding/csv %v", in, gerr, werr)
		}
		if werr == nil && !slices.EqualFunc(got, want, slices.Equal[[]string]) {
			t.Fatalf("%q:\n got %q\nwant %q", in, got, want)
		}
	})
}

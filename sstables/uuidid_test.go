package sstables

import (
	"strings"
	"testing"
	"time"
)

func TestUUIDIDExample(t *testing.T) {
	// modern-formats.md §4.2: the example identifier decoded by its rules.
	const text = "3gll_1kke_3qdyo2i4kzfpt3cqcy"
	u, err := ParseUUIDID(strings.ToUpper(text))
	if err != nil {
		t.Fatal(err)
	}
	if u.T/tPerDay != 161481 || (u.T/tPerSecond)%86400 != 73310 || u.T%tPerSecond != 6270000 {
		t.Errorf("parts %d %d %d", u.T/tPerDay, (u.T/tPerSecond)%86400, u.T%tPerSecond)
	}
	if u.LSB != 0xa4a0cf1eaefbd772 {
		t.Errorf("lsb %x", u.LSB)
	}
	if want := time.Date(2024, 11, 27, 20, 21, 50, 627000000, time.UTC); !u.Time().Equal(want) {
		t.Errorf("time %v, want %v", u.Time(), want)
	}
	if u.String() != text {
		t.Errorf("String %s", u.String())
	}
	d, c, _, err := ParseDescriptor("/x/nb-" + text + "-big-Data.db")
	if err != nil || d.UUID != text || d.Generation != 0 || c != ComponentData || d.Version.String() != "nb" {
		t.Fatalf("ParseDescriptor: %+v %s %v", d, c, err)
	}
	if got := d.Filename(ComponentTOC); got != "nb-"+text+"-big-TOC.txt" {
		t.Errorf("Filename %s", got)
	}
	for _, bad := range []string{"3gll_1kke_3qdyo2i4kzfpt3cqc", "3gll-1kke_3qdyo2i4kzfpt3cqcy", "3gll_1kke_3qdyo2i4kzfpt3cq!y"} {
		if _, err := ParseUUIDID(bad); err == nil {
			t.Errorf("ParseUUIDID(%q) succeeded", bad)
		}
	}
}

func TestNewUUIDIDIncreases(t *testing.T) {
	prev := NewUUIDID()
	for range 1000 {
		u := NewUUIDID()
		if u.Compare(prev) <= 0 {
			t.Fatalf("%s after %s", u, prev)
		}
		back, err := ParseUUIDID(u.String())
		if err != nil || back != u {
			t.Fatalf("round trip %s: %v %v", u, back, err)
		}
		prev = u
	}
	if d := time.Since(prev.Time()); d < -time.Second || d > time.Minute {
		t.Errorf("timestamp %v is not now", prev.Time())
	}
}

func TestDescriptorNames(t *testing.T) {
	for _, c := range []struct{ name, err string }{
		{"da-1-bti-Partitions.db", ""},
		{"ms-3-big-Rows.db", ""},
		{"oa-7-big-Data.db", ""},
		{"da-1-big-Data.db", "named bti"},
		{"oa-1-bti-Data.db", "named big"},
		{"zz-1-big-Data.db", "unknown SSTable version"},
		{"mc-0-big-Data.db", "identifier"},
		{"mc-x-big-Data.db", "identifier"},
	} {
		d, _, _, err := ParseDescriptor(c.name)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.err)
		case c.err == "" && d.Filename("Data.db") != strings.SplitN(c.name, "-", 4)[0]+"-"+d.ID()+"-"+d.Version.FileKind()+"-Data.db":
			t.Errorf("%s: Filename %s", c.name, d.Filename("Data.db"))
		}
	}
}

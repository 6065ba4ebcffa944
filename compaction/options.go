package compaction

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Cassandra's defaults (CompactionParams, AbstractCompactionStrategy,
// SizeTieredCompactionStrategyOptions).
const (
	DefaultMinThreshold                        = 4
	DefaultMaxThreshold                        = 32
	DefaultBucketLow                           = 0.5
	DefaultBucketHigh                          = 1.5
	DefaultMinSSTableSize                      = 50 << 20
	DefaultTombstoneThreshold          float32 = 0.2
	DefaultTombstoneCompactionInterval         = 86400 // seconds
)

// STCSOptions are the options of Cassandra's SizeTieredCompactionStrategy,
// under their CQL names. A zero field means Cassandra's default; a zero
// that must stay zero (min_sstable_size: 0, tombstone_threshold: 0, …)
// comes from ParseSTCSOptions, which remembers which options were given.
type STCSOptions struct {
	// MinThreshold (min_threshold, default 4) is the fewest SSTables a
	// bucket needs to be compacted; at least 2.
	MinThreshold int
	// MaxThreshold (max_threshold, default 32) is the most SSTables one
	// compaction takes; at least MinThreshold.
	MaxThreshold int
	// BucketLow (bucket_low, default 0.5) and BucketHigh (bucket_high,
	// default 1.5) bound the sizes a bucket takes, as fractions of its
	// average: BucketLow·avg < size < BucketHigh·avg. BucketHigh must be
	// larger than BucketLow (Cassandra checks nothing else).
	BucketLow, BucketHigh float64
	// MinSSTableSize (min_sstable_size, default 50 MiB) is the size in bytes
	// below which SSTables all share one bucket; not negative.
	MinSSTableSize int64
	// TombstoneThreshold (tombstone_threshold, default 0.2; a Java float,
	// compared as one) is the estimated droppable tombstone ratio an SSTable
	// must exceed to be compacted alone; not negative.
	TombstoneThreshold float32
	// TombstoneCompactionInterval (tombstone_compaction_interval, default
	// 86400) is how long, in seconds, an SSTable must exist before it is
	// compacted alone for its tombstones; not negative.
	TombstoneCompactionInterval int64
	// UncheckedTombstoneCompaction (unchecked_tombstone_compaction) skips
	// the overlap checks of a tombstone compaction.
	UncheckedTombstoneCompaction bool
	// OnlyPurgeRepairedTombstones (only_purge_repaired_tombstones) makes an
	// unrepaired SSTable never fully expired.
	OnlyPurgeRepairedTombstones bool
	// Disabled (enabled: false) turns background compaction off.
	Disabled bool

	// explicit lists the fields ParseSTCSOptions was given.
	explicit explicitSet
}

type explicitSet uint8

const (
	setMinThreshold explicitSet = 1 << iota
	setMaxThreshold
	setBucketLow
	setBucketHigh
	setMinSSTableSize
	setTombstoneThreshold
	setTombstoneInterval
)

// DefaultSTCSOptions returns Cassandra's defaults, every field filled in.
func DefaultSTCSOptions() STCSOptions { return STCSOptions{}.resolve() }

// resolve returns o with its unset zero fields replaced by the defaults.
func (o STCSOptions) resolve() STCSOptions {
	def := func(bit explicitSet) bool { return o.explicit&bit == 0 }
	if o.MinThreshold == 0 && def(setMinThreshold) {
		o.MinThreshold = DefaultMinThreshold
	}
	if o.MaxThreshold == 0 && def(setMaxThreshold) {
		o.MaxThreshold = DefaultMaxThreshold
	}
	if o.BucketLow == 0 && def(setBucketLow) {
		o.BucketLow = DefaultBucketLow
	}
	if o.BucketHigh == 0 && def(setBucketHigh) {
		o.BucketHigh = DefaultBucketHigh
	}
	if o.MinSSTableSize == 0 && def(setMinSSTableSize) {
		o.MinSSTableSize = DefaultMinSSTableSize
	}
	if o.TombstoneThreshold == 0 && def(setTombstoneThreshold) {
		o.TombstoneThreshold = DefaultTombstoneThreshold
	}
	if o.TombstoneCompactionInterval == 0 && def(setTombstoneInterval) {
		o.TombstoneCompactionInterval = DefaultTombstoneCompactionInterval
	}
	o.explicit = setMinThreshold | setMaxThreshold | setBucketLow | setBucketHigh | setMinSSTableSize | setTombstoneThreshold | setTombstoneInterval
	return o
}

// Validate checks the options as Cassandra checks a table's compaction
// options (its messages, after defaults are applied).
func (o STCSOptions) Validate() error {
	r := o.resolve()
	switch {
	case r.TombstoneThreshold < 0:
		return fmt.Errorf("tombstone_threshold must be greater than 0, but was %f", r.TombstoneThreshold)
	case r.TombstoneCompactionInterval < 0:
		return fmt.Errorf("tombstone_compaction_interval must be greater than 0, but was %d", r.TombstoneCompactionInterval)
	case r.MinSSTableSize < 0:
		return fmt.Errorf("min_sstable_size must be non negative: %d", r.MinSSTableSize)
	case !(r.BucketHigh > r.BucketLow):
		return fmt.Errorf("bucket_high value (%v) is less than or equal to the bucket_low value (%v)", r.BucketHigh, r.BucketLow)
	case r.MinThreshold <= 0 || r.MaxThreshold <= 0:
		return fmt.Errorf("Disabling compaction by setting compaction thresholds to 0 has been removed, set the compaction option 'enabled' to false instead.")
	case r.MinThreshold <= 1:
		return fmt.Errorf("Min compaction threshold cannot be less than 2 (got %d)", r.MinThreshold)
	case r.MinThreshold > r.MaxThreshold:
		return fmt.Errorf("Min compaction threshold (got %d) cannot be greater than max compaction threshold (got %d)", r.MinThreshold, r.MaxThreshold)
	}
	return nil
}

// stcsClassNames are the names a table's compaction 'class' may give the
// strategy.
var stcsClassNames = []string{"SizeTieredCompactionStrategy", "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy"}

// ParseSTCSOptions reads a table's compaction options as CQL gives them
// ({'class': 'SizeTieredCompactionStrategy', 'min_threshold': '4', …}),
// parsed and validated as Cassandra 3.11 does: numbers as Java parses them,
// booleans 'true' or 'false' (any case), and an option no part of the
// strategy understands an error ("cold_reads_to_omit", which 3.0 removed,
// is one). log_all and provide_overlapping_tombstones are accepted and
// have no effect here.
func ParseSTCSOptions(opts map[string]string) (STCSOptions, error) {
	var o STCSOptions
	known := map[string]bool{}
	get := func(k string) (string, bool) {
		v, ok := opts[k]
		known[k] = true
		return v, ok
	}
	if v, ok := get("class"); ok && !slices.Contains(stcsClassNames, v) {
		return o, fmt.Errorf("compaction class %q is not SizeTieredCompactionStrategy", v)
	}
	// AbstractCompactionStrategy.validateOptions.
	if v, ok := get("tombstone_threshold"); ok {
		f, err := javaParseFloat(v, 32)
		if err != nil {
			return o, fmt.Errorf("%s is not a parsable int (base10) for tombstone_threshold", v)
		}
		o.TombstoneThreshold, o.explicit = float32(f), o.explicit|setTombstoneThreshold
	}
	if v, ok := get("tombstone_compaction_interval"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return o, fmt.Errorf("%s is not a parsable int (base10) for tombstone_compaction_interval", v)
		}
		o.TombstoneCompactionInterval, o.explicit = n, o.explicit|setTombstoneInterval
	}
	for _, k := range []string{"unchecked_tombstone_compaction", "log_all", "enabled"} {
		v, ok := get(k)
		if !ok {
			continue
		}
		b, isBool := javaStrictBool(v)
		if !isBool {
			return o, fmt.Errorf("'%s' should be either 'true' or 'false', not '%s'", k, v)
		}
		switch k {
		case "unchecked_tombstone_compaction":
			o.UncheckedTombstoneCompaction = b
		case "enabled":
			o.Disabled = !b
		}
	}
	if v, ok := get("only_purge_repaired_tombstones"); ok {
		o.OnlyPurgeRepairedTombstones = strings.EqualFold(v, "true") // Boolean.parseBoolean
	}
	get("provide_overlapping_tombstones")
	// SizeTieredCompactionStrategyOptions.validateOptions.
	if v, ok := get("min_sstable_size"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return o, fmt.Errorf("%s is not a parsable int (base10) for min_sstable_size", v)
		}
		o.MinSSTableSize, o.explicit = n, o.explicit|setMinSSTableSize
	}
	if v, ok := get("bucket_low"); ok {
		f, err := javaParseFloat(v, 64)
		if err != nil {
			return o, fmt.Errorf("%s is not a parsable float for bucket_low", v)
		}
		o.BucketLow, o.explicit = f, o.explicit|setBucketLow
	}
	if v, ok := get("bucket_high"); ok {
		f, err := javaParseFloat(v, 64)
		if err != nil {
			return o, fmt.Errorf("%s is not a parsable float for bucket_high", v)
		}
		o.BucketHigh, o.explicit = f, o.explicit|setBucketHigh
	}
	// CompactionParams: min_threshold and max_threshold.
	for _, k := range []string{"min_threshold", "max_threshold"} {
		v, ok := get(k)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || strings.ContainsAny(v[:1], "+-") {
			return o, fmt.Errorf("Invalid value %s for '%s' compaction sub-option - must be an integer", v, k)
		}
		if k == "min_threshold" {
			o.MinThreshold, o.explicit = int(n), o.explicit|setMinThreshold
		} else {
			o.MaxThreshold, o.explicit = int(n), o.explicit|setMaxThreshold
		}
	}
	var unknown []string
	for k := range opts {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return o, fmt.Errorf("Properties specified [%s] are not understood by SizeTieredCompactionStrategy", strings.Join(unknown, ", "))
	}
	return o, o.Validate()
}

// javaStrictBool accepts what the strategy options accept as a boolean:
// "true" or "false" in any case.
func javaStrictBool(s string) (value, ok bool) {
	switch {
	case strings.EqualFold(s, "true"):
		return true, true
	case strings.EqualFold(s, "false"):
		return false, true
	}
	return false, false
}

// javaParseFloat parses as Java's Double.parseDouble (bits 64) or
// Float.parseFloat (32): surrounding whitespace and control characters
// ignored, an optional f/F/d/D suffix, "NaN" and "Infinity" spelled so,
// decimal or hexadecimal (0x…p…) forms.
func javaParseFloat(s string, bits int) (float64, error) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	body := strings.TrimLeft(s, "+-")
	switch {
	case len(s)-len(body) > 1:
		return 0, strconv.ErrSyntax
	case body == "NaN" || body == "Infinity":
		return strconv.ParseFloat(s, bits)
	case body == "" || strings.ContainsAny(body, "_iInN"):
		return 0, strconv.ErrSyntax
	}
	if c := s[len(s)-1]; c == 'f' || c == 'F' || c == 'd' || c == 'D' {
		if !strings.HasPrefix(strings.ToLower(body), "0x") || strings.ContainsAny(body, "pP") {
			s = s[:len(s)-1]
		}
	}
	return strconv.ParseFloat(s, bits)
}

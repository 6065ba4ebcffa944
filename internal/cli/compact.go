package cli

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// SetOptions are what the commands that rewrite a set of SSTables of one
// table (compact, filter, split) take alike.
type SetOptions struct {
	// SSTables are the inputs (component paths, prefixes or directories),
	// all of one table. They are never modified.
	SSTables []string
	// Out is the directory written to (created when missing).
	Out string
	// To is the version written; "" means the newest version among the
	// inputs (la for the read-only ka and lb).
	To string
	// Schema and Table give the table; needed for la inputs.
	Schema, Table string
	// Generation is the first output's generation; 0 means the next free
	// one in the output directory. UUIDIdentifiers names the outputs with
	// UUID-based identifiers instead.
	Generation      int
	UUIDIdentifiers bool
	// MaxSSTableSize starts a new output once Data.db reaches this many
	// bytes on disk; 0 means no cap.
	MaxSSTableSize int64
	// Now is the time that decides what has expired and what may be
	// purged; the zero value means the clock.
	Now time.Time
	// GCGraceSeconds overrides the table's gc_grace_seconds; nil means the
	// schema's (ten days without one).
	GCGraceSeconds *int64
	// HostID is the originating host id the outputs record (a UUID
	// string); "" means the inputs' when they all name one.
	HostID string
	// ReproduceLostComplexDeletions writes complex deletions as Cassandra
	// 5.0 does (see compaction.Options).
	ReproduceLostComplexDeletions bool
	// Jobs is the number of cores compressing; 0 means all.
	Jobs int
}

// CompactOptions configure Compact.
type CompactOptions struct {
	SetOptions
	// NoPurge keeps every tombstone and expired cell (the merge still
	// drops what deletions shadow).
	NoPurge bool
	// OnlyPurgeRepairedTombstones purges tombstones only when every input
	// is repaired.
	OnlyPurgeRepairedTombstones bool
	// Overlapping are SSTables of the table outside the compaction, whose
	// data the purge must not resurrect (see compaction.Options).
	Overlapping []string
}

// Compact merges SSTables of one table into new ones as Cassandra's
// compaction does (compaction.Compact): merged, purged of what gc grace
// allows at Now, and with what Cassandra's compaction writer carries into
// its outputs. The inputs are never changed; each output appears
// atomically (temporary names, TOC.txt last) and on failure or interrupt
// every output of the run is removed. The Data.db paths are printed on
// stdout, what was done on stderr.
func Compact(ctx context.Context, env *Env, opts CompactOptions) (*compaction.Result, error) {
	readers, t, copts, closeAll, err := setupSet("compact", opts.SetOptions)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	copts.NoPurge = opts.NoPurge
	copts.OnlyPurgeRepairedTombstones = opts.OnlyPurgeRepairedTombstones
	if len(opts.Overlapping) > 0 {
		descs, err := resolveSSTables(opts.Overlapping)
		if err != nil {
			return nil, err
		}
		for _, d := range descs {
			r, err := openSSTable(d, t, false)
			if err != nil {
				return nil, err
			}
			defer r.Close()
			copts.Overlapping = append(copts.Overlapping, r)
		}
	}
	return runCompaction(ctx, env, "compact", readers, t, copts)
}

// setupSet resolves and opens the inputs and turns the shared options
// into compaction options. closeAll closes the readers.
func setupSet(cmd string, o SetOptions) ([]sstables.Reader, *schema.Table, compaction.Options, func(), error) {
	var copts compaction.Options
	descs, t, format, err := rewriteSetup(cmd, o.Out, o.SSTables, o.Schema, o.Table, o.To, 0, "", 0, false)
	if err != nil {
		return nil, nil, copts, nil, err
	}
	var readers []sstables.Reader
	closeAll := func() {
		for _, r := range readers {
			r.Close()
		}
	}
	seen := map[string]bool{}
	for _, d := range descs {
		if seen[d.Path("")] {
			continue // named twice (a file and its directory)
		}
		seen[d.Path("")] = true
		r, err := openSSTable(d, t, false)
		if err != nil {
			closeAll()
			return nil, nil, copts, nil, err
		}
		readers = append(readers, r)
	}
	copts = compaction.Options{
		Out: o.Out, Format: format, Generation: o.Generation, UUIDIdentifiers: o.UUIDIdentifiers,
		MaxSSTableSize: o.MaxSSTableSize, Now: o.Now, GCGraceSeconds: -1, Jobs: o.Jobs,
		ReproduceLostComplexDeletions: o.ReproduceLostComplexDeletions,
	}
	if format == nil {
		// The newest input's version, a read-only one as what it is
		// rewritten as.
		newest := readers[0].Descriptor().Version
		for _, r := range readers[1:] {
			if v := r.Descriptor().Version; versionOrder(v.String()) > versionOrder(newest.String()) {
				newest = v
			}
		}
		copts.Format = keepVersion(newest)
	}
	if o.GCGraceSeconds != nil {
		if *o.GCGraceSeconds < 0 {
			closeAll()
			return nil, nil, copts, nil, Usagef("--gc-grace-seconds %d: want 0 or more", *o.GCGraceSeconds)
		}
		copts.GCGraceSeconds = *o.GCGraceSeconds
	}
	if o.HostID != "" {
		if copts.HostID, err = parseHostID(o.HostID); err != nil {
			closeAll()
			return nil, nil, copts, nil, err
		}
	}
	return readers, t, copts, closeAll, nil
}

// versionOrder is a version's place in the version table (oldest first).
func versionOrder(name string) int {
	for i, f := range sstables.Formats(false) {
		if f.Version().String() == name {
			return i
		}
	}
	return -1
}

// parseHostID parses a host id UUID (with or without dashes).
func parseHostID(s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil || len(b) != 16 {
		return nil, Usagef("--host-id %q: want a UUID such as 3f2d5a1e-8c4b-4f7e-9a6d-1b2c3d4e5f60", s)
	}
	return b, nil
}

// runCompaction runs compaction.Compact and reports: the Data.db paths on
// stdout, a summary on stderr.
func runCompaction(ctx context.Context, env *Env, cmd string, readers []sstables.Reader, t *schema.Table, copts compaction.Options) (*compaction.Result, error) {
	start := time.Now()
	var length int64
	for _, r := range readers {
		length += dataLength(r.Descriptor())
	}
	prog := newProgress(env, cmd, -1)
	var last int64
	copts.Progress = func(partitions int64) {
		prog.addRows(partitions - last)
		last = partitions
	}
	res, err := compaction.Compact(ctx, readers, t, copts)
	prog.finish()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, fmt.Errorf("interrupted; the SSTables of this run were removed")
		}
		return nil, err
	}
	var output int64
	for _, r := range res.Outputs {
		fmt.Fprintln(env.stdout(), r.Descriptor.Path(sstables.ComponentData))
		output += r.BytesWritten
	}
	d := time.Since(start)
	purge := "purged at " + time.Unix(nowOf(copts), 0).UTC().Format(time.RFC3339)
	if copts.NoPurge {
		purge = "not purged"
	}
	env.infof("castable %s: %d SSTables (Data.db %s, %s uncompressed) -> %d SSTables (%s) in %s: %s partitions, %s rows, %s; %s, %.1f MB/s of input, %s rows/s",
		cmd, len(readers), humanBytes(res.InputBytes), humanBytes(length), len(res.Outputs), outputVersions(res.Outputs), copts.Out,
		groupDigits(res.Partitions), groupDigits(res.Rows), purge, roundDuration(d),
		float64(res.InputBytes)/1e6/max(d.Seconds(), 1e-9), groupDigits(perSecond(res.Rows, d)))
	if len(res.Expired) > 0 {
		var names []string
		for _, d := range res.Expired {
			names = append(names, d.String())
		}
		env.infof("castable %s: left out %d fully expired SSTables (every deletion in them purgeable, nothing newer than the others' data): %s", cmd, len(res.Expired), strings.Join(names, ", "))
	}
	p := readers[0].Partitioner()
	for _, rr := range res.Ranges {
		if len(rr.Outputs) == 0 {
			env.infof("castable %s: %s: range %s: no partition, nothing written", cmd, rr.Dir, rr.Range.Format(p))
			continue
		}
		env.infof("castable %s: %s: range %s: %d SSTables, %s partitions, %s rows", cmd, rr.Dir, rr.Range.Format(p), len(rr.Outputs), groupDigits(rr.Partitions), groupDigits(rr.Rows))
	}
	return res, nil
}

func nowOf(o compaction.Options) int64 {
	if o.Now.IsZero() {
		return time.Now().Unix()
	}
	return o.Now.Unix()
}

// FilterOptions configure Filter.
type FilterOptions struct {
	SetOptions
	// Keys are partition keys in the string form dump -k takes; KeysFile
	// names a file of such keys, one a line (empty lines skipped).
	Keys     []string
	KeysFile string
	// TokenRanges are token ranges "(a, b]" in the partitioner's token
	// strings.
	TokenRanges []string
	// Exclude drops the partitions named instead of keeping them.
	Exclude bool
	// Purge purges as compact does; by default nothing is purged.
	Purge bool
}

// Filter writes the partitions of a set of SSTables that match (a key
// given, or a token in one of the ranges) — or with Exclude those that do
// not — merged, into new SSTables (compaction.Move: no tombstone is
// dropped, unless Purge).
func Filter(ctx context.Context, env *Env, opts FilterOptions) (*compaction.Result, error) {
	if len(opts.Keys) == 0 && opts.KeysFile == "" && len(opts.TokenRanges) == 0 {
		return nil, Usagef("filter needs --key, --keys-file or --token-range")
	}
	readers, t, copts, closeAll, err := setupSet("filter", opts.SetOptions)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	if t == nil {
		t = readers[0].Table()
	}
	part := readers[0].Partitioner()
	keys := opts.Keys
	if opts.KeysFile != "" {
		more, err := readKeysFile(opts.KeysFile)
		if err != nil {
			return nil, err
		}
		keys = append(keys, more...)
	}
	set := make(map[string]bool, len(keys))
	parsed, err := parseKeys(t, keys)
	if err != nil {
		return nil, err
	}
	for _, k := range parsed {
		set[string(k)] = true
	}
	var ranges []dht.Range
	for _, s := range opts.TokenRanges {
		r, err := dht.ParseRange(part, s)
		if err != nil {
			return nil, Usagef("--token-range: %v", err)
		}
		ranges = append(ranges, r)
	}
	exclude := opts.Exclude
	copts.Keep = func(tok dht.Token, key []byte) bool {
		match := set[string(key)]
		for i := 0; !match && i < len(ranges); i++ {
			match = ranges[i].Contains(tok)
		}
		return match != exclude
	}
	copts.NoPurge = !opts.Purge // as compaction.Move, unless --purge
	return runCompaction(ctx, env, "filter", readers, t, copts)
}

// SplitOptions configure Split.
type SplitOptions struct {
	SetOptions
	// Ranges splits the ring into this many equal parts (dht.SplitRing).
	Ranges int
	// TokensFile names a ring's tokens: one a line, nodetool ring output
	// or JSON (dht.ParseRingTokens); each range they delimit is an output.
	TokensFile string
	// Purge purges as compact does; by default nothing is purged.
	Purge bool
}

// Split writes a set of SSTables into new ones: by size alone
// (MaxSSTableSize), or one directory per token range (Ranges equal parts
// of the ring, or the ranges of TokensFile's ring), range-000, range-001,
// … below Out in ring order, each cut at MaxSSTableSize when it is set.
// Nothing is purged unless Purge (compaction.Move).
func Split(ctx context.Context, env *Env, opts SplitOptions) (*compaction.Result, error) {
	switch {
	case opts.Ranges < 0:
		return nil, Usagef("--ranges %d: want 1 or more", opts.Ranges)
	case opts.Ranges > 0 && opts.TokensFile != "":
		return nil, Usagef("--ranges and --tokens exclude each other")
	case opts.Ranges == 0 && opts.TokensFile == "" && opts.MaxSSTableSize == 0:
		return nil, Usagef("split needs --max-sstable-size, --ranges or --tokens")
	}
	readers, t, copts, closeAll, err := setupSet("split", opts.SetOptions)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	part := readers[0].Partitioner()
	switch {
	case opts.Ranges > 0:
		if copts.Ranges, err = dht.SplitRing(part, opts.Ranges); err != nil {
			return nil, Usagef("--ranges: %v", err)
		}
	case opts.TokensFile != "":
		b, err := os.ReadFile(opts.TokensFile)
		if err != nil {
			return nil, err
		}
		tokens, err := dht.ParseRingTokens(part, b)
		if err != nil {
			return nil, Usagef("--tokens %s: %v", opts.TokensFile, err)
		}
		if copts.Ranges, err = dht.RingRanges(tokens); err != nil {
			return nil, Usagef("--tokens %s: %v", opts.TokensFile, err)
		}
	}
	copts.NoPurge = !opts.Purge // as compaction.Move, unless --purge
	return runCompaction(ctx, env, "split", readers, t, copts)
}

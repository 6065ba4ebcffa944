package jsondump

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// Normalize converts a document in any accepted form into the canonical
// form (json-format.md §2.4) for table t, written with the given layout:
// decode, then encode canonically. Partition positions present in the
// input are kept. It streams one partition at a time.
func Normalize(w io.Writer, r io.Reader, t *schema.Table, layout Layout) error {
	dec := NewDecoder(r, t, DecodeOptions{})
	enc := NewEncoder(w, t, EncodeOptions{Format: FormatCanonical, Layout: layout})
	var p mutation.Partition
	for {
		p = mutation.Partition{}
		err := dec.Decode(&p)
		if err == io.EOF {
			return enc.Close()
		}
		if err != nil {
			return err
		}
		if err := enc.Encode(&p, dec.Position()); err != nil {
			return err
		}
	}
}

// NormalizeBytes is Normalize on an in-memory document, pretty-printed.
func NormalizeBytes(doc []byte, t *schema.Table) ([]byte, error) {
	var out bytes.Buffer
	if err := Normalize(&out, bytes.NewReader(doc), t, LayoutPretty); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// DiffOptions configure Diff.
type DiffOptions struct {
	// ComparePositions compares partition "position" fields too (only
	// meaningful when both documents describe the same Data.db).
	ComparePositions bool
}

// Diff compares two documents for table t after normalizing both to the
// canonical form, partition by partition, and describes the first
// difference by its path (partition key, row, cell, field), e.g.
//
//	partition ["1"] > rows[0] row [2] > cells[0] rc > tstamp: 1525385507816568 != 1525385507816569
//
// It returns "" when they are equal. Numbers are compared by exact decimal
// value. An error means a document could not be decoded.
func Diff(t *schema.Table, a, b io.Reader, opts DiffOptions) (string, error) {
	da := NewDecoder(a, t, DecodeOptions{})
	db := NewDecoder(b, t, DecodeOptions{})
	var bufA, bufB bytes.Buffer
	for i := 0; ; i++ {
		var pa, pb mutation.Partition
		errA := da.Decode(&pa)
		errB := db.Decode(&pb)
		switch {
		case errA != nil && errA != io.EOF:
			return "", fmt.Errorf("first document: %w", errA)
		case errB != nil && errB != io.EOF:
			return "", fmt.Errorf("second document: %w", errB)
		case errA == io.EOF && errB == io.EOF:
			return "", nil
		case errA == io.EOF:
			return fmt.Sprintf("partition %d: only in the second document: %s", i, mutation.FormatKey(t, pb.Key)), nil
		case errB == io.EOF:
			return fmt.Sprintf("partition %d: only in the first document: %s", i, mutation.FormatKey(t, pa.Key)), nil
		}
		va, err := canonicalValue(&bufA, t, &pa, da.Position(), opts)
		if err != nil {
			return "", fmt.Errorf("first document: %w", err)
		}
		vb, err := canonicalValue(&bufB, t, &pb, db.Position(), opts)
		if err != nil {
			return "", fmt.Errorf("second document: %w", err)
		}
		if d := diffValues("partition "+mutation.FormatKey(t, pa.Key), va, vb); d != "" {
			return d, nil
		}
	}
}

// DiffBytes is Diff on in-memory documents.
func DiffBytes(t *schema.Table, a, b []byte, opts DiffOptions) (string, error) {
	return Diff(t, bytes.NewReader(a), bytes.NewReader(b), opts)
}

// canonicalValue encodes one partition canonically and parses it back
// into generic JSON values.
func canonicalValue(buf *bytes.Buffer, t *schema.Table, p *mutation.Partition, position int64, opts DiffOptions) (any, error) {
	buf.Reset()
	if !opts.ComparePositions {
		position = -1
	}
	enc := NewEncoder(buf, t, EncodeOptions{Format: FormatCanonical, Layout: LayoutLines})
	if err := enc.Encode(p, position); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(buf)
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// diffValues returns the first difference between two generic JSON values.
func diffValues(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %s != %s", path, short(a), short(b))
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool {
			return fieldRank(keys[i]) < fieldRank(keys[j]) || (fieldRank(keys[i]) == fieldRank(keys[j]) && keys[i] < keys[j])
		})
		for _, k := range keys {
			va, inA := x[k]
			vb, inB := y[k]
			sub := path + " > " + k
			switch {
			case !inA:
				return fmt.Sprintf("%s: missing in the first document (second has %s)", sub, short(vb))
			case !inB:
				return fmt.Sprintf("%s: missing in the second document (first has %s)", sub, short(va))
			}
			if d := diffValues(sub, va, vb); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			return fmt.Sprintf("%s: %s != %s", path, short(a), short(b))
		}
		for i := 0; i < len(x) && i < len(y); i++ {
			if d := diffValues(path+elementLabel(i, x[i]), x[i], y[i]); d != "" {
				return d
			}
		}
		switch {
		case len(x) < len(y):
			return fmt.Sprintf("%s: the second document has %d more element(s), first extra: %s", path, len(y)-len(x), short(y[len(x)]))
		case len(x) > len(y):
			return fmt.Sprintf("%s: the first document has %d more element(s), first extra: %s", path, len(x)-len(y), short(x[len(y)]))
		}
		return ""
	case json.Number:
		y, ok := b.(json.Number)
		if !ok || !numbersEqual(x, y) {
			return fmt.Sprintf("%s: %s != %s", path, short(a), short(b))
		}
		return ""
	default:
		if a != b {
			return fmt.Sprintf("%s: %s != %s", path, short(a), short(b))
		}
		return ""
	}
}

// fieldRank orders the fields of a difference report the way the format
// prints them, so the "first" difference is the first in document order.
func fieldRank(k string) int {
	switch k {
	case "partition", "type", "name":
		return 0
	case "key", "path", "start":
		return 1
	case "position", "clustering", "value", "end":
		return 2
	case "liveness_info", "counter_shards", "deletion_info":
		return 3
	case "tstamp", "shadowable_deletion_info":
		return 4
	case "rows", "cells", "ttl":
		return 5
	}
	return 6
}

// elementLabel names an array element: its index plus, for rows and
// cells, what identifies it.
func elementLabel(i int, v any) string {
	label := "[" + strconv.Itoa(i) + "]"
	m, ok := v.(map[string]any)
	if !ok {
		return label
	}
	if typ, ok := m["type"].(string); ok {
		switch typ {
		case "row":
			return label + " row " + short(m["clustering"])
		case "static_block":
			return label + " static"
		default:
			return label + " " + typ
		}
	}
	if name, ok := m["name"].(string); ok {
		if p, ok := m["path"]; ok {
			return label + " " + name + short(p)
		}
		return label + " " + name
	}
	return label
}

func numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	ra, ok1 := new(big.Rat).SetString(string(a))
	rb, ok2 := new(big.Rat).SetString(string(b))
	return ok1 && ok2 && ra.Cmp(rb) == 0
}

func short(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return strings.ReplaceAll(s, "\n", " ")
}

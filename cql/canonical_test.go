package cql

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// This file renders partitions in the canonical JSON form of
// json-format.md §2.4 (without positions) so tests can compare what a CQL
// statement builds with the data.json of a reference case. It is a small
// independent renderer, not the jsondump package.

func renderPartitions(t *testing.T, tab *schema.Table, ps []*mutation.Partition) []any {
	t.Helper()
	var out []any
	for _, p := range ps {
		out = append(out, renderPartition(t, tab, p))
	}
	return out
}

func jsonValue(t *testing.T, typ *schema.Type, v []byte) any {
	t.Helper()
	if v == nil {
		return nil
	}
	j, err := typ.AppendJSON(nil, v)
	if err != nil {
		t.Fatalf("AppendJSON(%s, %x): %v", typ, v, err)
	}
	return decodeUseNumber(t, j)
}

func decodeUseNumber(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

func num(v int64) json.Number { return json.Number(strconv.FormatInt(v, 10)) }

func deletionJSON(d mutation.DeletionTime) map[string]any {
	return map[string]any{"marked_deleted": num(d.MarkedForDeleteAt), "local_delete_time": num(int64(d.LocalDeletionTime))}
}

func renderPartition(t *testing.T, tab *schema.Table, p *mutation.Partition) map[string]any {
	comps, err := tab.SplitPartitionKey(p.Key)
	if err != nil {
		t.Fatal(err)
	}
	var key []any
	for i, c := range comps {
		s, err := tab.PartitionKey[i].Type.AppendString(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		key = append(key, string(s))
	}
	head := map[string]any{"key": key}
	if !p.Deletion.IsLive() {
		head["deletion_info"] = deletionJSON(p.Deletion)
	}
	var rows []any
	if !p.Static.IsEmpty() {
		rows = append(rows, renderRow(t, tab, &p.Static, true))
	}
	// Rows and markers in clustering order.
	ri, mi := 0, 0
	for ri < len(p.Rows) || mi < len(p.Markers) {
		if mi >= len(p.Markers) || ri < len(p.Rows) &&
			mutation.ComparePrefix(tab, mutation.ClusteringKind, p.Rows[ri].Clustering, p.Markers[mi].Kind, p.Markers[mi].Clustering) < 0 {
			rows = append(rows, renderRow(t, tab, &p.Rows[ri], false))
			ri++
			continue
		}
		rows = append(rows, renderMarker(t, tab, &p.Markers[mi]))
		mi++
	}
	if rows == nil {
		rows = []any{}
	}
	return map[string]any{"partition": head, "rows": rows}
}

func clusteringJSON(t *testing.T, tab *schema.Table, c mutation.Clustering, bound bool) []any {
	var out []any
	for i, col := range tab.Clustering {
		if i >= len(c) {
			if bound {
				out = append(out, "*")
			}
			continue
		}
		out = append(out, jsonValue(t, col.Type, c[i]))
	}
	return out
}

func renderRow(t *testing.T, tab *schema.Table, r *mutation.Row, static bool) map[string]any {
	row := map[string]any{"type": "row"}
	if static {
		row["type"] = "static_block"
	} else if len(tab.Clustering) > 0 {
		row["clustering"] = clusteringJSON(t, tab, r.Clustering, false)
	}
	rowTTL := int32(0)
	if !r.Liveness.IsEmpty() {
		li := map[string]any{"tstamp": num(r.Liveness.Timestamp)}
		if r.Liveness.IsExpiring() {
			rowTTL = r.Liveness.TTL
			li["ttl"] = num(int64(r.Liveness.TTL))
			li["expires_at"] = num(int64(r.Liveness.LocalExpirationTime))
		}
		row["liveness_info"] = li
	}
	if !r.Deletion.IsLive() {
		row["deletion_info"] = deletionJSON(r.Deletion)
	}
	cells := []any{}
	var cols []*schema.Column
	seen := map[*schema.Column]bool{}
	for i := range r.Cells {
		if c := r.Cells[i].Column; !seen[c] {
			seen[c] = true
			cols = append(cols, c)
		}
	}
	for _, cd := range r.ComplexDeletions {
		if !seen[cd.Column] {
			seen[cd.Column] = true
			cols = append(cols, cd.Column)
		}
	}
	sort.SliceStable(cols, func(i, j int) bool { return cols[i].Index < cols[j].Index })
	for _, col := range cols {
		if d := r.ComplexDeletionOf(col); !d.IsLive() {
			cells = append(cells, map[string]any{"name": schema.QuoteIdentifier(col.Name), "deletion_info": deletionJSON(d)})
		}
		for i := range r.Cells {
			c := &r.Cells[i]
			if c.Column != col {
				continue
			}
			cj := map[string]any{"name": schema.QuoteIdentifier(c.Column.Name), "tstamp": num(c.Timestamp)}
			valueType := c.Column.Type
			if c.Path != nil {
				pt := c.Column.Type.PathType()
				s, err := pt.AppendString(nil, c.Path)
				if err != nil {
					t.Fatal(err)
				}
				cj["path"] = []any{string(s)}
				valueType = c.Column.Type.ElementValueType(c.Path)
			}
			switch {
			case c.IsTombstone():
				cj["deletion_info"] = map[string]any{"local_delete_time": num(int64(c.LocalDeletionTime))}
			case len(c.Value) == 0:
				cj["value"] = ""
			default:
				cj["value"] = jsonValue(t, valueType, c.Value)
			}
			if c.IsExpiring() {
				cj["ttl"] = num(int64(c.TTL))
				cj["expires_at"] = num(int64(c.LocalDeletionTime))
			} else if rowTTL != 0 && !c.IsTombstone() {
				cj["ttl"] = num(0)
			}
			cells = append(cells, cj)
		}
	}
	row["cells"] = cells
	return row
}

func renderMarker(t *testing.T, tab *schema.Table, m *mutation.RangeTombstoneMarker) map[string]any {
	bound := func(incl bool, d mutation.DeletionTime) map[string]any {
		b := map[string]any{"type": "exclusive", "deletion_info": deletionJSON(d)}
		if incl {
			b["type"] = "inclusive"
		}
		if len(m.Clustering) > 0 {
			b["clustering"] = clusteringJSON(t, tab, m.Clustering, true)
		}
		return b
	}
	out := map[string]any{}
	switch m.Kind {
	case mutation.InclStartBound, mutation.ExclStartBound:
		out["type"] = "range_tombstone_bound"
		out["start"] = bound(m.Kind == mutation.InclStartBound, m.Open)
	case mutation.InclEndBound, mutation.ExclEndBound:
		out["type"] = "range_tombstone_bound"
		out["end"] = bound(m.Kind == mutation.InclEndBound, m.Close)
	case mutation.ExclEndInclStartBoundary:
		out["type"] = "range_tombstone_boundary"
		out["start"] = bound(true, m.Open)
		out["end"] = bound(false, m.Close)
	case mutation.InclEndExclStartBoundary:
		out["type"] = "range_tombstone_boundary"
		out["start"] = bound(false, m.Open)
		out["end"] = bound(true, m.Close)
	default:
		t.Fatalf("marker kind %v", m.Kind)
	}
	return out
}

// stripPositions removes "position" fields (the dump's byte offsets).
func stripPositions(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "position")
		for k, e := range x {
			x[k] = stripPositions(e)
		}
	case []any:
		for i, e := range x {
			x[i] = stripPositions(e)
		}
	}
	return v
}

// mergeByKey merges the mutations of one table into partitions in sstable
// order, as a memtable would.
func mergeByKey(t *testing.T, tab *schema.Table, ms []Mutation, now int64) []*mutation.Partition {
	t.Helper()
	byKey := map[string]*mutation.Partition{}
	var order []*mutation.Partition
	for _, m := range ms {
		if m.Table != tab {
			t.Fatalf("mutation of table %s, want %s", m.Table.Name, tab.Name)
		}
		p := m.Partition
		if want := dht.Murmur3.Token(p.Key); !p.Token.Equal(want) {
			t.Fatalf("token %s, want %s", dht.Murmur3.String(p.Token), dht.Murmur3.String(want))
		}
		if dst := byKey[string(p.Key)]; dst != nil {
			if err := mutation.Merge(tab, dst, p, now); err != nil {
				t.Fatal(err)
			}
			continue
		}
		byKey[string(p.Key)] = p
		order = append(order, p)
	}
	sort.SliceStable(order, func(i, j int) bool {
		return dht.ComparePartitions(order[i].Token, order[i].Key, order[j].Token, order[j].Key) < 0
	})
	return order
}

func diffJSON(got, want any) string {
	if reflect.DeepEqual(got, want) {
		return ""
	}
	g, _ := json.MarshalIndent(got, "", " ")
	w, _ := json.MarshalIndent(want, "", " ")
	gl, wl := strings.Split(string(g), "\n"), strings.Split(string(w), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var a, b string
		if i < len(gl) {
			a = gl[i]
		}
		if i < len(wl) {
			b = wl[i]
		}
		if a != b {
			return fmt.Sprintf("first difference at line %d:\n got: %s\nwant: %s\n--- got ---\n%s", i+1, a, b, g)
		}
	}
	return "differs"
}

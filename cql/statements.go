package cql

import (
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// maxClusteringCombinations bounds the rows an IN restriction can expand
// to.
const maxClusteringCombinations = 1 << 16

func (b *Builder) insert(st *Insert) (*Mutation, error) {
	s, err := b.begin(st.Table, st.Using, st.Pos)
	if err != nil {
		return nil, err
	}
	t := s.t
	if t.IsCounter() {
		return nil, semanticError(st.Pos, "INSERT is not allowed on counter tables, use UPDATE")
	}
	values := map[*schema.Column]*Term{}
	for i, id := range st.Columns {
		c, err := s.column(id)
		if err != nil {
			return nil, err
		}
		if _, dup := values[c]; dup {
			return nil, semanticError(id.Pos, "column %s given twice", c.Name)
		}
		values[c] = st.Values[i]
	}
	pk := make([][]byte, len(t.PartitionKey))
	for i, c := range t.PartitionKey {
		term, ok := values[c]
		if !ok {
			return nil, semanticError(st.Pos, "missing partition key column %s", c.Name)
		}
		if pk[i], err = b.keyValue(term, c); err != nil {
			return nil, err
		}
	}
	if err := b.partitionKey(s, pk, st.Pos); err != nil {
		return nil, err
	}

	// Clustering: every column, except that a COMPACT STORAGE table may
	// leave trailing ones out (null), and a write of static columns only
	// may leave them all out.
	clustering := make(mutation.Clustering, len(t.Clustering))
	given := 0
	for i, c := range t.Clustering {
		term, ok := values[c]
		if !ok {
			break
		}
		if clustering[i], err = b.keyValue(term, c); err != nil {
			return nil, err
		}
		given++
	}
	for _, c := range t.Clustering[given:] {
		if _, ok := values[c]; ok {
			return nil, semanticError(st.Pos, "clustering column %s given without the ones before it", c.Name)
		}
	}
	regular, static := 0, 0
	for c := range values {
		switch c.Kind {
		case schema.Regular:
			regular++
		case schema.Static:
			static++
		}
	}
	staticOnly := given == 0 && len(t.Clustering) > 0
	switch {
	case staticOnly && regular > 0:
		return nil, semanticError(st.Pos, "missing clustering column %s", t.Clustering[0].Name)
	case staticOnly && static == 0:
		return nil, semanticError(st.Pos, "missing clustering column %s", t.Clustering[0].Name)
	case given < len(t.Clustering) && given > 0 && !t.IsDense():
		return nil, semanticError(st.Pos, "missing clustering column %s", t.Clustering[given].Name)
	}

	if !staticOnly {
		s.mb.StartRow(clusteringOrNil(clustering))
		if !t.Options.CompactStorage {
			live := mutation.LivenessInfo{Timestamp: s.ts, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
			if s.ttl > 0 {
				live.TTL, live.LocalExpirationTime = s.ttl, s.expiry
			}
			s.mb.SetLiveness(live)
		} else if regular == 0 {
			// A COMPACT STORAGE row exists only through a cell: a table
			// without regular columns writes its hidden empty value.
			if len(t.Regular) == 1 && t.Regular[0].Hidden && t.Regular[0].Type.Kind == schema.KindEmpty {
				s.mb.AddCell(s.cell(t.Regular[0], nil, []byte{}))
			} else if len(t.Regular) > 0 && !t.Regular[0].Hidden {
				return nil, semanticError(st.Pos, "column %s is mandatory for this COMPACT STORAGE table", t.Regular[0].Name)
			}
		}
		for _, id := range st.Columns {
			c := t.Column(id.Name)
			if c.Kind == schema.Regular {
				if err := b.setColumn(s, c, values[c]); err != nil {
					return nil, err
				}
			}
		}
	}
	if static > 0 {
		s.mb.StartStatic()
		for _, id := range st.Columns {
			c := t.Column(id.Name)
			if c.Kind == schema.Static {
				if err := b.setColumn(s, c, values[c]); err != nil {
					return nil, err
				}
			}
		}
	}
	return s.finish(st.Pos)
}

// clusteringOrNil is the clustering of a row: nil for a table without
// clustering columns.
func clusteringOrNil(c mutation.Clustering) mutation.Clustering {
	if len(c) == 0 {
		return nil
	}
	return c
}

// keyValue binds a primary key value; it cannot be null, and only a
// partition key of one column may be empty.
func (b *Builder) keyValue(term *Term, c *schema.Column) ([]byte, error) {
	v, err := b.value(term, c.Type, c.Name)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, semanticError(term.Pos, "column %s: a primary key column cannot be null", c.Name)
	}
	if len(v) > 0xFFFF {
		return nil, semanticError(term.Pos, "column %s: key value of %d bytes exceeds 65535", c.Name, len(v))
	}
	return v, nil
}

// restrictions is the analysed WHERE clause.
type restrictions struct {
	pk [][]byte
	// eq holds the values of the leading clustering columns restricted by
	// = or IN (several values for IN).
	eq [][][]byte
	// A slice on the clustering columns after eq: lower and upper bounds
	// as value tuples (nil when absent).
	lower, upper         [][]byte
	lowerIncl, upperIncl bool
	sliceCol             int // first clustering column of the slice, or -1
	slicePos             Pos
}

func (r *restrictions) hasSlice() bool { return r.sliceCol >= 0 }

// clusterings expands the equality restrictions (IN) into clusterings.
func (r *restrictions) clusterings(at Pos) ([]mutation.Clustering, error) {
	out := []mutation.Clustering{{}}
	for _, vals := range r.eq {
		if len(out)*len(vals) > maxClusteringCombinations {
			return nil, semanticError(at, "IN restrictions expand to more than %d rows", maxClusteringCombinations)
		}
		next := make([]mutation.Clustering, 0, len(out)*len(vals))
		for _, prefix := range out {
			for _, v := range vals {
				c := append(append(mutation.Clustering{}, prefix...), v)
				next = append(next, c)
			}
		}
		out = next
	}
	return out, nil
}

func (b *Builder) where(s *stmt, rels []Relation, at Pos) (*restrictions, error) {
	t := s.t
	r := &restrictions{pk: make([][]byte, len(t.PartitionKey)), sliceCol: -1}
	eqVals := make([][][]byte, len(t.Clustering))
	type sliceBound struct {
		vals [][]byte
		incl bool
	}
	var lower, upper *sliceBound
	sliceCols := 0
	for _, rel := range rels {
		cols := make([]*schema.Column, len(rel.Columns))
		for i, id := range rel.Columns {
			c, err := s.column(id)
			if err != nil {
				return nil, err
			}
			cols[i] = c
			if c.Kind == schema.Regular || c.Kind == schema.Static {
				return nil, semanticError(id.Pos, "column %s is not part of the primary key and cannot be restricted", c.Name)
			}
			if len(cols) > 1 && c.Kind != schema.ClusteringKey {
				return nil, semanticError(id.Pos, "multi-column relations are only for clustering columns")
			}
		}
		// The value tuples of the relation: one per IN element.
		var tuples []*Term
		switch {
		case rel.Op == "IN":
			tuples = rel.Value.Elems
			if len(tuples) == 0 {
				return nil, semanticError(rel.Pos, "empty IN list")
			}
		default:
			tuples = []*Term{rel.Value}
		}
		bound := make([][][]byte, 0, len(tuples))
		for _, tup := range tuples {
			var elems []*Term
			if len(cols) == 1 {
				elems = []*Term{tup}
			} else {
				if tup.Kind != TermTuple || len(tup.Elems) != len(cols) {
					return nil, semanticError(tup.Pos, "expected a tuple of %d values", len(cols))
				}
				elems = tup.Elems
			}
			vals := make([][]byte, len(cols))
			for i, c := range cols {
				v, err := b.keyValue(elems[i], c)
				if err != nil {
					return nil, err
				}
				vals[i] = v
			}
			bound = append(bound, vals)
		}
		first := cols[0]
		if first.Kind == schema.PartitionKey {
			if rel.Op != "=" {
				return nil, semanticError(rel.Pos, "partition key column %s must be restricted by = (a statement writes one partition)", first.Name)
			}
			if r.pk[first.Index] != nil {
				return nil, semanticError(rel.Pos, "partition key column %s restricted twice", first.Name)
			}
			r.pk[first.Index] = bound[0][0]
			continue
		}
		switch rel.Op {
		case "=", "IN":
			for i, c := range cols {
				if eqVals[c.Index] != nil {
					return nil, semanticError(rel.Pos, "clustering column %s restricted twice", c.Name)
				}
				for _, vals := range bound {
					eqVals[c.Index] = append(eqVals[c.Index], vals[i])
				}
			}
			if len(cols) > 1 && rel.Op == "IN" {
				return nil, semanticError(rel.Pos, "multi-column IN is not supported")
			}
		default:
			if r.sliceCol >= 0 && r.sliceCol != first.Index || sliceCols != 0 && sliceCols != len(cols) {
				return nil, semanticError(rel.Pos, "a range may restrict one clustering column (or one column tuple)")
			}
			for i, c := range cols {
				if c.Index != first.Index+i {
					return nil, semanticError(rel.Pos, "the columns of a multi-column relation must be consecutive clustering columns")
				}
				if len(cols) > 1 && c.Type.Reversed {
					return nil, semanticError(rel.Pos, "multi-column ranges over DESC clustering columns are not supported")
				}
			}
			r.sliceCol, sliceCols, r.slicePos = first.Index, len(cols), rel.Pos
			sb := &sliceBound{vals: bound[0], incl: rel.Op == "<=" || rel.Op == ">="}
			isLower := rel.Op == ">" || rel.Op == ">="
			if isLower {
				if lower != nil {
					return nil, semanticError(rel.Pos, "lower bound given twice")
				}
				lower = sb
			} else {
				if upper != nil {
					return nil, semanticError(rel.Pos, "upper bound given twice")
				}
				upper = sb
			}
		}
	}
	for i, c := range t.PartitionKey {
		if r.pk[i] == nil {
			return nil, semanticError(at, "missing partition key column %s in WHERE", c.Name)
		}
	}
	// Equalities must cover a prefix of the clustering, and a slice must
	// follow them directly.
	n := 0
	for n < len(eqVals) && eqVals[n] != nil {
		n++
	}
	for i := n; i < len(eqVals); i++ {
		if eqVals[i] != nil {
			return nil, semanticError(at, "clustering column %s is restricted but %s before it is not", t.Clustering[i].Name, t.Clustering[n].Name)
		}
	}
	r.eq = eqVals[:n]
	if r.sliceCol >= 0 && r.sliceCol != n {
		return nil, semanticError(r.slicePos, "a range must be on the first clustering column not restricted by = (%s)", t.Clustering[min(n, len(t.Clustering)-1)].Name)
	}
	if lower != nil {
		r.lower, r.lowerIncl = lower.vals, lower.incl
	}
	if upper != nil {
		r.upper, r.upperIncl = upper.vals, upper.incl
	}
	return r, nil
}

func (b *Builder) update(st *Update) (*Mutation, error) {
	s, err := b.begin(st.Table, st.Using, st.Pos)
	if err != nil {
		return nil, err
	}
	t := s.t
	r, err := b.where(s, st.Where, st.Pos)
	if err != nil {
		return nil, err
	}
	if err := b.partitionKey(s, r.pk, st.Pos); err != nil {
		return nil, err
	}
	if r.hasSlice() {
		return nil, semanticError(r.slicePos, "UPDATE needs = on every clustering column")
	}
	counter := t.IsCounter()
	if counter && st.Using.HasTTL {
		return nil, semanticError(st.Pos, "a TTL is not allowed on counter updates")
	}
	if counter && st.Using.HasTimestamp {
		return nil, semanticError(st.Pos, "counter updates cannot have a custom timestamp")
	}
	regular, static := false, false
	cols := make([]*schema.Column, len(st.Assignments))
	simpleSet := map[*schema.Column]bool{}
	for i, a := range st.Assignments {
		c, err := s.column(a.Column)
		if err != nil {
			return nil, err
		}
		switch c.Kind {
		case schema.PartitionKey, schema.ClusteringKey:
			return nil, semanticError(a.Pos, "primary key column %s cannot be updated", c.Name)
		case schema.Static:
			static = true
		default:
			regular = true
		}
		if a.Op == OpSet || !c.Type.IsComplex() {
			if simpleSet[c] {
				return nil, semanticError(a.Pos, "column %s assigned twice", c.Name)
			}
			simpleSet[c] = true
		}
		cols[i] = c
	}
	rows, err := b.targetRows(s, r, regular, static, st.Pos)
	if err != nil {
		return nil, err
	}
	apply := func(kind schema.ColumnKind, clustering mutation.Clustering) error {
		for i, a := range st.Assignments {
			if cols[i].Kind == kind {
				if err := b.assign(s, cols[i], a, clustering); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, c := range rows {
		s.mb.StartRow(clusteringOrNil(c))
		if err := apply(schema.Regular, c); err != nil {
			return nil, err
		}
	}
	if static {
		s.mb.StartStatic()
		if err := apply(schema.Static, nil); err != nil {
			return nil, err
		}
	}
	return s.finish(st.Pos)
}

// targetRows returns the clustering rows an UPDATE or a column DELETE
// writes: the rows named by = / IN, none when only static columns are
// touched.
func (b *Builder) targetRows(s *stmt, r *restrictions, regular, static bool, at Pos) ([]mutation.Clustering, error) {
	t := s.t
	if !regular {
		if len(r.eq) > 0 && static {
			return nil, semanticError(at, "clustering columns cannot be restricted when only static columns are written")
		}
		return nil, nil
	}
	if len(r.eq) < len(t.Clustering) && !(t.IsDense() && len(r.eq) > 0) {
		return nil, semanticError(at, "missing = restriction on clustering column %s", t.Clustering[len(r.eq)].Name)
	}
	rows, err := r.clusterings(at)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		for len(rows[i]) < len(t.Clustering) {
			rows[i] = append(rows[i], nil) // COMPACT STORAGE: null trailing components
		}
	}
	return rows, nil
}

// assign applies one SET clause to the current row.
func (b *Builder) assign(s *stmt, c *schema.Column, a Assignment, clustering mutation.Clustering) error {
	typ := c.Type
	frozenErr := func() error {
		return semanticError(a.Pos, "column %s: invalid operation for a frozen or non-collection %s", c.Name, typ)
	}
	switch a.Op {
	case OpSet:
		return b.setColumn(s, c, a.Value)
	case OpAdd:
		if typ.Kind == schema.KindCounter {
			return b.counterUpdate(s, c, clustering, a.Value)
		}
		if !typ.IsComplex() || typ.Kind == schema.KindUDT {
			return frozenErr()
		}
		if a.Value.Kind == TermNull {
			return nil
		}
		return b.addElements(s, c, a.Value, false)
	case OpPrepend:
		if typ.Kind != schema.KindList || !typ.IsComplex() {
			return semanticError(a.Pos, "column %s: only a non-frozen list can be prepended to", c.Name)
		}
		if a.Value.Kind == TermNull {
			return nil
		}
		return b.addElements(s, c, a.Value, true)
	case OpSubtract:
		if typ.Kind == schema.KindCounter {
			v, err := b.value(a.Value, schema.Bigint, c.Name)
			if err != nil {
				return err
			}
			if v == nil {
				return semanticError(a.Value.Pos, "column %s: invalid null counter decrement", c.Name)
			}
			delta := int64(0)
			for _, x := range v {
				delta = delta<<8 | int64(x)
			}
			return b.counterAdd(s, c, clustering, -delta)
		}
		if !typ.IsComplex() {
			return frozenErr()
		}
		switch typ.Kind {
		case schema.KindList:
			return semanticError(a.Pos, "column %s: removing list elements by value needs a read and is not supported offline", c.Name)
		case schema.KindSet, schema.KindMap:
			if a.Value.Kind == TermNull {
				return nil
			}
			if a.Value.Kind != TermSet {
				return bindError(a.Value, c.Name, "expected a set of %s to remove", typ.Params[0])
			}
			elems, err := b.elements(a.Value, typ.Params[0], c.Name, 0)
			if err != nil {
				return err
			}
			for _, e := range sortUnique(typ.Params[0], elems) {
				s.mb.AddCell(s.tombstone(c, e))
			}
			return nil
		}
		return frozenErr()
	case OpSetElem:
		switch {
		case typ.Kind == schema.KindMap && typ.IsComplex():
			k, err := b.value(a.Key, typ.Params[0], c.Name)
			if err != nil {
				return err
			}
			if k == nil {
				return semanticError(a.Key.Pos, "column %s: a map key cannot be null", c.Name)
			}
			v, err := b.value(a.Value, typ.Params[1], c.Name)
			if err != nil {
				return err
			}
			if v == nil {
				s.mb.AddCell(s.tombstone(c, k))
			} else {
				s.mb.AddCell(s.cell(c, k, v))
			}
			return nil
		case typ.Kind == schema.KindList && typ.IsComplex():
			return semanticError(a.Pos, "column %s: setting a list element by index needs a read and is not supported offline", c.Name)
		}
		return semanticError(a.Pos, "column %s: element assignment needs a non-frozen map", c.Name)
	case OpSetField:
		if typ.Kind != schema.KindUDT {
			return semanticError(a.Pos, "column %s is not a user type", c.Name)
		}
		if !typ.IsComplex() {
			return semanticError(a.Pos, "column %s: a field of a frozen user type cannot be set alone", c.Name)
		}
		f := typ.FieldByName(a.Field)
		if f < 0 {
			return semanticError(a.Pos, "column %s: unknown field %s", c.Name, a.Field)
		}
		v, err := b.value(a.Value, typ.Params[f], c.Name)
		if err != nil {
			return err
		}
		path := schema.AppendFieldIndex(nil, f)
		if v == nil {
			s.mb.AddCell(s.tombstone(c, path))
		} else {
			s.mb.AddCell(s.cell(c, path, v))
		}
		return nil
	}
	return semanticError(a.Pos, "unknown operation %s", a.Op)
}

func (b *Builder) delete(st *Delete) (*Mutation, error) {
	s, err := b.begin(st.Table, st.Using, st.Pos)
	if err != nil {
		return nil, err
	}
	r, err := b.where(s, st.Where, st.Pos)
	if err != nil {
		return nil, err
	}
	if err := b.partitionKey(s, r.pk, st.Pos); err != nil {
		return nil, err
	}
	if len(st.Selections) == 0 {
		return b.deleteRows(s, r, st)
	}
	if r.hasSlice() {
		return nil, semanticError(r.slicePos, "a range deletion cannot name columns")
	}
	regular, static := false, false
	cols := make([]*schema.Column, len(st.Selections))
	for i, sel := range st.Selections {
		c, err := s.column(sel.Column)
		if err != nil {
			return nil, err
		}
		switch c.Kind {
		case schema.PartitionKey, schema.ClusteringKey:
			return nil, semanticError(sel.Pos, "primary key column %s cannot be deleted alone", c.Name)
		case schema.Static:
			static = true
		default:
			regular = true
		}
		cols[i] = c
	}
	rows, err := b.targetRows(s, r, regular, static, st.Pos)
	if err != nil {
		return nil, err
	}
	apply := func(kind schema.ColumnKind) error {
		for i, sel := range st.Selections {
			if cols[i].Kind == kind {
				if err := b.deleteSelection(s, cols[i], sel); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, c := range rows {
		s.mb.StartRow(clusteringOrNil(c))
		if err := apply(schema.Regular); err != nil {
			return nil, err
		}
	}
	if static {
		s.mb.StartStatic()
		if err := apply(schema.Static); err != nil {
			return nil, err
		}
	}
	return s.finish(st.Pos)
}

// deleteSelection deletes a column, an element or a field.
func (b *Builder) deleteSelection(s *stmt, c *schema.Column, sel Selection) error {
	typ := c.Type
	switch {
	case sel.Key == nil && sel.Field == "":
		if typ.IsComplex() {
			s.mb.AddComplexDeletion(c, s.deletion(s.ts))
		} else {
			s.mb.AddCell(s.tombstone(c, nil))
		}
		return nil
	case sel.Field != "":
		if typ.Kind != schema.KindUDT || !typ.IsComplex() {
			return semanticError(sel.Pos, "column %s: only a field of a non-frozen user type can be deleted", c.Name)
		}
		f := typ.FieldByName(sel.Field)
		if f < 0 {
			return semanticError(sel.Pos, "column %s: unknown field %s", c.Name, sel.Field)
		}
		s.mb.AddCell(s.tombstone(c, schema.AppendFieldIndex(nil, f)))
		return nil
	}
	switch {
	case (typ.Kind == schema.KindMap || typ.Kind == schema.KindSet) && typ.IsComplex():
		k, err := b.value(sel.Key, typ.Params[0], c.Name)
		if err != nil {
			return err
		}
		if k == nil {
			return semanticError(sel.Key.Pos, "column %s: invalid null element", c.Name)
		}
		s.mb.AddCell(s.tombstone(c, k))
		return nil
	case typ.Kind == schema.KindList && typ.IsComplex():
		return semanticError(sel.Pos, "column %s: deleting a list element by index needs a read and is not supported offline", c.Name)
	}
	return semanticError(sel.Pos, "column %s: element deletion needs a non-frozen map or set", c.Name)
}

// deleteRows handles DELETE without columns: a partition deletion, row
// deletions, or a range tombstone over a clustering prefix or slice.
func (b *Builder) deleteRows(s *stmt, r *restrictions, st *Delete) (*Mutation, error) {
	t := s.t
	del := s.deletion(s.ts)
	switch {
	case len(r.eq) == 0 && !r.hasSlice():
		s.mb.SetPartitionDeletion(del)
		return s.finish(st.Pos)
	case len(r.eq) == len(t.Clustering):
		rows, err := r.clusterings(st.Pos)
		if err != nil {
			return nil, err
		}
		for _, c := range rows {
			s.mb.StartRow(c)
			s.mb.SetRowDeletion(del, false)
		}
		return s.finish(st.Pos)
	}
	prefixes, err := r.clusterings(st.Pos)
	if err != nil {
		return nil, err
	}
	if len(prefixes) > 1 {
		return nil, semanticError(st.Pos, "IN with a range deletion is not supported")
	}
	prefix := prefixes[0]
	startKind, endKind := mutation.InclStartBound, mutation.InclEndBound
	start, end := prefix, prefix
	if r.hasSlice() {
		lo, hi := r.lower, r.upper
		loIncl, hiIncl := r.lowerIncl, r.upperIncl
		if t.Clustering[r.sliceCol].Type.Reversed {
			// In a DESC column the range runs from the upper value down.
			lo, hi, loIncl, hiIncl = hi, lo, hiIncl, loIncl
		}
		if lo != nil {
			start = append(append(mutation.Clustering{}, prefix...), lo...)
			if !loIncl {
				startKind = mutation.ExclStartBound
			}
		}
		if hi != nil {
			end = append(append(mutation.Clustering{}, prefix...), hi...)
			if !hiIncl {
				endKind = mutation.ExclEndBound
			}
		}
		if mutation.ComparePrefix(t, startKind, start, endKind, end) >= 0 {
			return nil, semanticError(r.slicePos, "the range is empty")
		}
	}
	s.mb.AddMarker(mutation.RangeTombstoneMarker{Kind: startKind, Clustering: start, Open: del, Close: mutation.Live})
	s.mb.AddMarker(mutation.RangeTombstoneMarker{Kind: endKind, Clustering: end, Open: mutation.Live, Close: del})
	return s.finish(st.Pos)
}

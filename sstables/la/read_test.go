package la

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/sstables"
)

// expectedDumps are the canonical dumps of the read corpus (JSON Lines),
// holding the values each folder's source.txt states: keys, cell values,
// the collection tombstone of "set", TTL and expiry of "ttl", the deleted
// cell of "deleted_cell", the counter totals c1 = 13 and c2 = -92 of
// "counter_test" (shards of the two nodes) and its deleted c1, the range
// tombstone over ck1 = 0 of "promoted_index_read". Timestamps are those in
// the files.
var expectedDumps = map[string]string{
	"uncompressed/la-1": uncompressedDump,
	"uncompressed/la-2": uncompressedDump,
	"compressed/la-1": `
{"partition":{"key":["vinna"],"position":0},"rows":[{"type":"row","liveness_info":{"tstamp":1418654707438005},"cells":[{"name":"col1","value":"daughter","tstamp":1418654707438005},{"name":"col2","value":3,"tstamp":1418654707438005}]}]}
{"partition":{"key":["gustaf"],"position":95},"rows":[{"type":"row","liveness_info":{"tstamp":1418654679153417},"cells":[{"name":"col1","value":"son","tstamp":1418654679153417},{"name":"col2","value":0,"tstamp":1418654679153417}]}]}
{"partition":{"key":["isak"],"position":186},"rows":[{"type":"row","liveness_info":{"tstamp":1418654685962710},"cells":[{"name":"col1","value":"son","tstamp":1418654685962710},{"name":"col2","value":1,"tstamp":1418654685962710}]}]}
{"partition":{"key":["finna"],"position":275},"rows":[{"type":"row","liveness_info":{"tstamp":1418654700296617},"cells":[{"name":"col1","value":"daughter","tstamp":1418654700296617},{"name":"col2","value":2,"tstamp":1418654700296617}]}]}`,
	"set/la-1": `
{"partition":{"key":["user1"],"position":0},"rows":[{"type":"row","liveness_info":{"tstamp":1428855312063525},"cells":[{"name":"favorites","deletion_info":{"marked_deleted":1428855312063524,"local_delete_time":1428855312}},{"name":"favorites","path":["kittens"],"value":"","tstamp":1428855312063525},{"name":"favorites","path":["raindrops"],"value":"","tstamp":1428855312063525}]}]}`,
	"map_pk/la-1": `
{"partition":{"key":["0000000100000001320000000132"],"position":0},"rows":[{"type":"row","liveness_info":{"tstamp":1429535322037884},"cells":[{"name":"ns","value":"2","tstamp":1429535322037884}]}]}
{"partition":{"key":["0000000100000001310000000131"],"position":69},"rows":[{"type":"row","liveness_info":{"tstamp":1429535313853832},"cells":[{"name":"ns","value":"1","tstamp":1429535313853832}]}]}
{"partition":{"key":["0000000100000001330000000133"],"position":138},"rows":[{"type":"row","liveness_info":{"tstamp":1429535328983665},"cells":[{"name":"ns","value":"3","tstamp":1429535328983665}]}]}`,
	"list_pk/la-1": `
{"partition":{"key":["0000000200000001310000000132"],"position":0},"rows":[{"type":"row","liveness_info":{"tstamp":1429535406523599},"cells":[{"name":"ns","value":"2","tstamp":1429535406523599}]}]}
{"partition":{"key":["00000003000000013100000001320000000133"],"position":69},"rows":[{"type":"row","liveness_info":{"tstamp":1429535412660357},"cells":[{"name":"ns","value":"3","tstamp":1429535412660357}]}]}
{"partition":{"key":["000000010000000131"],"position":143},"rows":[{"type":"row","liveness_info":{"tstamp":1429535399790155},"cells":[{"name":"ns","value":"1","tstamp":1429535399790155}]}]}`,
	"ttl/la-1": `
{"partition":{"key":["nadav"],"position":0},"rows":[{"type":"row","liveness_info":{"tstamp":1430151018675502,"ttl":3600,"expires_at":1430154618},"cells":[{"name":"age","value":40,"tstamp":1430151018675502,"ttl":3600,"expires_at":1430154618}]}]}`,
	"deleted_cell/la-2": `
{"partition":{"key":["nadav"],"position":0},"rows":[{"type":"row","cells":[{"name":"age","deletion_info":{"local_delete_time":1430200516},"tstamp":1430200516937621}]}]}`,
	"static_column/la-58": `
{"partition":{"key":["keykeykeykey"],"position":0},"rows":[{"type":"static_block","cells":[{"name":"test_foo_bar_zed_baz_static","value":"staticstatic","tstamp":1544129969533902}]},{"type":"row","clustering":["valvalvalval"],"liveness_info":{"tstamp":1544129969533902},"cells":[]}]}`,
	"counter_test/la-5": `
{"partition":{"key":["0"],"position":0},"rows":[{"type":"row","clustering":[0],"cells":[{"name":"c1","value":13,"counter_shards":[{"counter_id":"8379ab99-4507-4ab1-805d-ac85a863092b","clock":2,"count":11,"kind":"global"},{"counter_id":"b8a6c3f3-e222-433f-9ce9-de56a8466e07","clock":1,"count":2,"kind":"global"}],"tstamp":1483027082846000},{"name":"c2","value":-92,"counter_shards":[{"counter_id":"8379ab99-4507-4ab1-805d-ac85a863092b","clock":1,"count":-99,"kind":"global"},{"counter_id":"b8a6c3f3-e222-433f-9ce9-de56a8466e07","clock":1,"count":7,"kind":"global"}],"tstamp":1483027070799000}]},{"type":"row","clustering":[1],"cells":[{"name":"c1","deletion_info":{"local_delete_time":1483027218},"tstamp":1483027218543077}]}]}`,
	"promoted_index_read/la-1": `
{"partition":{"key":["0"],"position":0},"rows":[{"type":"range_tombstone_bound","start":{"type":"inclusive","clustering":[0,"*"],"deletion_info":{"marked_deleted":1468923292708929,"local_delete_time":1468923292}}},{"type":"row","clustering":[0,0],"liveness_info":{"tstamp":1468923308379491},"cells":[{"name":"v","value":0,"tstamp":1468923308379491}]},{"type":"row","clustering":[0,1],"liveness_info":{"tstamp":1468923311744298},"cells":[{"name":"v","value":1,"tstamp":1468923311744298}]},{"type":"range_tombstone_bound","end":{"type":"inclusive","clustering":[0,"*"],"deletion_info":{"marked_deleted":1468923292708929,"local_delete_time":1468923292}}}]}`,
}

const uncompressedDump = `
{"partition":{"key":["vinna"],"position":0},"rows":[{"type":"row","liveness_info":{"tstamp":1418656871665302},"cells":[{"name":"col1","value":"daughter","tstamp":1418656871665302},{"name":"col2","value":3,"tstamp":1418656871665302}]}]}
{"partition":{"key":["gustaf"],"position":95},"rows":[{"type":"row","liveness_info":{"tstamp":1418656848360085},"cells":[{"name":"col1","value":"son","tstamp":1418656848360085},{"name":"col2","value":0,"tstamp":1418656848360085}]}]}
{"partition":{"key":["isak"],"position":186},"rows":[{"type":"row","liveness_info":{"tstamp":1418656854069084},"cells":[{"name":"col1","value":"son","tstamp":1418656854069084},{"name":"col2","value":1,"tstamp":1418656854069084}]}]}
{"partition":{"key":["finna"],"position":275},"rows":[{"type":"row","liveness_info":{"tstamp":1418656867401933},"cells":[{"name":"col1","value":"daughter","tstamp":1418656867401933},{"name":"col2","value":2,"tstamp":1418656867401933}]}]}`

// TestDumpRealFiles dumps every real la SSTable with its schema and
// compares with the expected content.
func TestDumpRealFiles(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name(), func(t *testing.T) {
			table := fixtureTables[f.dir].build(t)
			got, _ := dumpSSTable(t, f.desc(t), table)
			if f.dir == "composite" {
				checkComposite(t, got)
				return
			}
			want, ok := expectedDumps[f.name()]
			if !ok {
				t.Fatalf("no expected dump for %s", f.name())
			}
			diff, err := jsondump.DiffBytes(table, []byte(got), []byte(strings.TrimSpace(want)), jsondump.DiffOptions{ComparePositions: true})
			if err != nil {
				t.Fatal(err)
			}
			if diff != "" {
				t.Fatalf("dump differs: %s\n%s", diff, got)
			}
		})
	}
}

// checkComposite checks the "composite" dump: 20 partitions with a
// two-component key, each one row with a row marker and str1 … str4 as
// ASCII strings written at the marker's timestamp (source.txt).
func checkComposite(t *testing.T, dump string) {
	t.Helper()
	var parts []struct {
		Partition struct {
			Key []string `json:"key"`
		} `json:"partition"`
		Rows []struct {
			Liveness struct {
				Tstamp int64 `json:"tstamp"`
			} `json:"liveness_info"`
			Cells []struct {
				Name   string `json:"name"`
				Value  string `json:"value"`
				Tstamp int64  `json:"tstamp"`
			} `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(dump), &parts); err != nil {
		t.Fatal(err)
	}
	if len(parts) != 20 {
		t.Fatalf("%d partitions, want 20", len(parts))
	}
	for i, p := range parts {
		if len(p.Partition.Key) != 2 || len(p.Rows) != 1 || len(p.Rows[0].Cells) != 4 {
			t.Fatalf("partition %d: %+v", i, p)
		}
		row := p.Rows[0]
		for j, c := range row.Cells {
			if c.Name != "str"+string(rune('1'+j)) || len(c.Value) == 0 || c.Tstamp != row.Liveness.Tstamp {
				t.Fatalf("partition %d cell %d: %+v (marker at %d)", i, j, c, row.Liveness.Tstamp)
			}
		}
	}
}

// TestDumpWithoutSchema reads every real la SSTable without a schema:
// the inferred table names the columns from the cell names, every value is
// a blob (hex in the dump), and the layout and the values' bytes are the
// same as with the schema.
func TestDumpWithoutSchema(t *testing.T) {
	inferredColumns := map[string]string{
		"uncompressed":        "key blob pk|col1 blob|col2 blob",
		"set":                 "key blob pk|favorites map<blob, blob>",
		"counter_test":        "key blob pk|column1 blob ck|c1 counter|c2 counter",
		"promoted_index_read": "key blob pk|column1 blob ck|column2 blob ck|v blob",
		"static_column":       "key blob pk|column1 blob ck|test_foo_bar_zed_baz_static blob static",
	}
	for _, f := range fixtures {
		t.Run(f.name(), func(t *testing.T) {
			got, r := dumpSSTable(t, f.desc(t), nil)
			if !r.Inferred() {
				t.Fatal("table not marked inferred")
			}
			if want, ok := inferredColumns[f.dir]; ok {
				var cols []string
				for _, c := range r.Table().Columns() {
					kind := map[int]string{1: " pk", 2: " ck", 3: " static", 4: ""}[int(c.Kind)]
					cols = append(cols, c.Name+" "+c.Type.String()+kind)
				}
				if g := strings.Join(cols, "|"); g != want {
					t.Errorf("inferred columns %s, want %s", g, want)
				}
			}
			withSchema, _ := dumpSSTable(t, f.desc(t), fixtureTables[f.dir].build(t))
			if strings.Count(got, `"type": "row"`) != strings.Count(withSchema, `"type": "row"`) ||
				strings.Count(got, `"name":`) != strings.Count(withSchema, `"name":`) {
				t.Errorf("inferred dump has another shape:\n%s\nwith schema:\n%s", got, withSchema)
			}
			if f.dir == "uncompressed" && !strings.Contains(got, `"value": "0x6461756768746572"`) {
				t.Errorf("col1 'daughter' not dumped as a hex blob:\n%s", got)
			}
		})
	}
}

// TestGet looks up every partition of every real file by key through
// Summary.db and Index.db (Filter.db first), and keys that are absent.
func TestGet(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name(), func(t *testing.T) {
			r, err := Open(f.desc(t), fixtureTables[f.dir].build(t), sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for _, p := range readAll(t, r) {
				got, err := r.Get(p.Key)
				if err != nil {
					t.Fatal(err)
				}
				if got == nil || !bytes.Equal(got.Key, p.Key) || len(got.Rows) != len(p.Rows) || len(got.Markers) != len(p.Markers) {
					t.Fatalf("Get(%x) = %+v, want %+v", p.Key, got, p)
				}
				absent := append(bytes.Clone(p.Key), 'x')
				if got, err := r.Get(absent); err != nil || got != nil {
					t.Fatalf("Get(%x) = %v, %v; want nil, nil", absent, got, err)
				}
			}
		})
	}
}

// TestWriteLayout describes promoted_index_read/la-1 (la-format.md §4.3):
// the atoms with the range tombstone written four times and the five
// promoted-index blocks, the first of zero width.
func TestWriteLayout(t *testing.T) {
	f := fixtures[len(fixtures)-1]
	if f.dir != "promoted_index_read" {
		t.Fatal("fixture order changed")
	}
	r, err := Open(f.desc(t), fixtureTables[f.dir].build(t), sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	if err := WriteLayout(&buf, r); err != nil {
		t.Fatal(err)
	}
	want := `partition 0 key=00000000 token=-3485513579396041028 data=0+313 header=18 index=0+288
  range-tombstone offset=18 size=31 name=(0)/start end=(0)/end ts=1468923292708929
  range-tombstone offset=49 size=31 name=(0)/start end=(0)/end ts=1468923292708929
  cell offset=80 size=32 name=(0, 0):<marker> ts=1468923308379491
  range-tombstone offset=112 size=31 name=(0)/start end=(0)/end ts=1468923292708929
  cell offset=143 size=37 name=(0, 0):v ts=1468923308379491
  range-tombstone offset=180 size=31 name=(0)/start end=(0)/end ts=1468923292708929
  cell offset=211 size=32 name=(0, 1):<marker> ts=1468923311744298
  range-tombstone offset=243 size=31 name=(0)/start end=(0)/end ts=1468923292708929
  cell offset=274 size=37 name=(0, 1):v ts=1468923311744298
  end offset=311
  block 0 offset=18 width=0 first=(0)/start last=(0)/start
  block 1 offset=18 width=94 first=(0, 0):<marker> last=(0, 0):<marker>
  block 2 offset=112 width=68 first=(0, 0):v last=(0, 0):v
  block 3 offset=180 width=63 first=(0, 1):<marker> last=(0, 1):<marker>
  block 4 offset=243 width=68 first=(0, 1):v last=(0, 1):v
`
	if got := buf.String(); got != want {
		t.Fatalf("layout:\n%s\nwant:\n%s", got, want)
	}
}

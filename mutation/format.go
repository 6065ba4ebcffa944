package mutation

import (
	"encoding/hex"
	"strconv"

	"github.com/castable-db/castable/schema"
)

// FormatKey renders a serialized partition key for messages: its components
// in string form as a JSON-like array (["1", "hello"]), or hex when it does
// not decode.
func FormatKey(t *schema.Table, key []byte) string {
	parts, err := t.SplitPartitionKey(key)
	if err != nil || len(parts) != len(t.PartitionKey) {
		return "0x" + hex.EncodeToString(key)
	}
	b := []byte{'['}
	for i, v := range parts {
		if i > 0 {
			b = append(b, ", "...)
		}
		s, err := t.PartitionKey[i].Type.AppendString(nil, v)
		if err != nil {
			s = append([]byte("0x"), hex.EncodeToString(v)...)
		}
		b = strconv.AppendQuote(b, string(s))
	}
	return string(append(b, ']'))
}

// FormatClustering renders a clustering prefix for messages in JSON form
// ([2, "dear"]); null components print as null, undecodable ones as hex.
func FormatClustering(t *schema.Table, c Clustering) string {
	b := []byte{'['}
	for i, v := range c {
		if i > 0 {
			b = append(b, ", "...)
		}
		switch {
		case v == nil:
			b = append(b, "null"...)
		case i >= len(t.Clustering):
			b = append(b, "0x"...)
			b = hex.AppendEncode(b, v)
		default:
			out, err := t.Clustering[i].Type.AppendJSON(b, v)
			if err != nil {
				b = append(b, "0x"...)
				b = hex.AppendEncode(b, v)
			} else {
				b = out
			}
		}
	}
	return string(append(b, ']'))
}

package trie

import (
	"bytes"
	"encoding/hex"
	"testing"
)

func TestQuickSimple(t *testing.T) {
	keys := [][]byte{{0x40, 0x30}, {0x40, 0x31}, {0x40, 0x32}, {0x40, 0x33}, {0x40, 0x34}}
	pl := [][]byte{{0x09, 0xff}, {0x37, 0xe9}, {0xdd, 0xd1}, {0x02, 0xb9}, {0x2f, 0xa1}}
	fl := []uint8{8, 8, 8, 8, 8}
	b, root, err := Bytes(0, keys, fl, pl)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := hex.DecodeString("0809ff0837e908ddd10802b9082fa1a0300400f00c00900600301b40")
	if !bytes.Equal(b, want) || root != 0x1a {
		t.Fatalf("got %x root %x", b, root)
	}
}

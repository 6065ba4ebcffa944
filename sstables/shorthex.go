package sstables

import (
	"encoding/hex"
	"strconv"
)

// shortHexMax is the number of bytes ShortHex shows in full.
const shortHexMax = 32

// ShortHex renders a key or value for an error message: its hex form when
// it is at most 32 bytes, else the first 32 bytes' hex followed by
// "…(N bytes)", so that a 64 KiB key (the very thing a length limit
// rejects) does not make a 128 KiB message.
func ShortHex(b []byte) string {
	if len(b) <= shortHexMax {
		return hex.EncodeToString(b)
	}
	return hex.EncodeToString(b[:shortHexMax]) + "…(" + strconv.Itoa(len(b)) + " bytes)"
}

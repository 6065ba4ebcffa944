package dht

import (
	"fmt"
	"strings"
)

// Partitioner is one of Cassandra's partitioners. A cluster uses one for
// all its tables, for ever; an SSTable names it in Statistics.db.
type Partitioner interface {
	// Name is the full class name, as Statistics.db writes it
	// ("org.apache.cassandra.dht.Murmur3Partitioner").
	Name() string
	// Token returns the token of a serialized partition key.
	Token(key []byte) Token
	// TokenFromHash is Token given the first half h1 of the key's
	// MurmurHash3 (Murmur3), which writers compute anyway for the bloom
	// filter; partitioners that do not hash with it ignore h1.
	TokenFromHash(key []byte, h1 uint64) Token
	// MinToken is the minimum token (the empty key's).
	MinToken() Token
	// PreservesOrder reports whether tokens follow the keys' byte order,
	// so that tokens of real keys crowd in a small part of the token space
	// instead of spreading over it.
	PreservesOrder() bool
	// String renders a token as Cassandra prints it (nodetool ring,
	// sstablemetadata): a decimal number for Murmur3 and Random, the key in
	// hex for ByteOrdered, the string for OrderPreserving.
	String(t Token) string
	// ParseToken parses String's form.
	ParseToken(s string) (Token, error)
	// AppendComparable appends the token's byte-comparable form (OSS50,
	// Token.asComparableBytes), the first component of a partition key in
	// the BTI tries: Murmur3's 8 bytes with the sign flipped, Random's
	// IntegerType form, the escaped key (ByteOrdered) or string in UTF-8
	// (OrderPreserving).
	AppendComparable(dst []byte, t Token) []byte
}

// The partitioners' class names.
const (
	Murmur3Name         = "org.apache.cassandra.dht.Murmur3Partitioner"
	RandomName          = "org.apache.cassandra.dht.RandomPartitioner"
	ByteOrderedName     = "org.apache.cassandra.dht.ByteOrderedPartitioner"
	OrderPreservingName = "org.apache.cassandra.dht.OrderPreservingPartitioner"
	localName           = "org.apache.cassandra.dht.LocalPartitioner"
)

// The partitioners.
var (
	// Murmur3 is Murmur3Partitioner, Cassandra's default since 1.2.
	Murmur3 Partitioner = murmur3{}
	// Random is RandomPartitioner: abs(MD5(key)) as a BigInteger.
	Random Partitioner = random{}
	// ByteOrdered is ByteOrderedPartitioner: the token is the key.
	ByteOrdered Partitioner = byteOrdered{}
	// OrderPreserving is OrderPreservingPartitioner: the token is the key
	// as a UTF-8 string, ordered as Java orders strings.
	OrderPreserving Partitioner = orderPreserving{}
)

var partitioners = []Partitioner{Murmur3, Random, ByteOrdered, OrderPreserving}

// Lookup returns the partitioner of a class name, full
// ("org.apache.cassandra.dht.RandomPartitioner") or short
// ("RandomPartitioner", "Random", case-insensitively); the empty name is
// Murmur3, Cassandra's default. An unknown name is an error.
func Lookup(name string) (Partitioner, error) {
	if name == "" {
		return Murmur3, nil
	}
	want := strings.ToLower(shortName(name))
	for _, p := range partitioners {
		short := strings.ToLower(shortName(p.Name()))
		if want == short || want+"partitioner" == short {
			return p, nil
		}
	}
	if strings.EqualFold(shortName(name), shortName(localName)) {
		return nil, fmt.Errorf("dht: LocalPartitioner (Cassandra's secondary index and system tables) is not supported")
	}
	return nil, fmt.Errorf("dht: unknown partitioner %q (want Murmur3Partitioner, RandomPartitioner, ByteOrderedPartitioner or OrderPreservingPartitioner)", name)
}

// Names lists the short names of the partitioners, for help texts.
func Names() []string {
	out := make([]string, len(partitioners))
	for i, p := range partitioners {
		out[i] = shortName(p.Name())
	}
	return out
}

// shortName strips the Java package of a class name.
func shortName(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

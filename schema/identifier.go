package schema

import "strings"

// reservedKeywords are the CQL keywords Cassandra 3.11 refuses as unquoted
// identifiers (cql3/ReservedKeywords.java). An identifier equal to one of
// them, in any case, is printed quoted.
var reservedKeywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AND": true, "ENTRIES": true,
	"FULL": true, "INSERT": true, "UPDATE": true, "WITH": true, "LIMIT": true,
	"USING": true, "USE": true, "SET": true, "BEGIN": true, "UNLOGGED": true,
	"BATCH": true, "APPLY": true, "TRUNCATE": true, "DELETE": true, "IN": true,
	"CREATE": true, "KEYSPACE": true, "SCHEMA": true, "COLUMNFAMILY": true,
	"TABLE": true, "MATERIALIZED": true, "VIEW": true, "INDEX": true, "ON": true,
	"TO": true, "DROP": true, "PRIMARY": true, "INTO": true, "ALTER": true,
	"RENAME": true, "ADD": true, "ORDER": true, "BY": true, "ASC": true,
	"DESC": true, "ALLOW": true, "IF": true, "IS": true, "GRANT": true, "OF": true,
	"REVOKE": true, "MODIFY": true, "AUTHORIZE": true, "DESCRIBE": true,
	"EXECUTE": true, "NORECURSIVE": true, "TOKEN": true, "NULL": true, "NOT": true,
	"NAN": true, "INFINITY": true, "OR": true, "REPLACE": true, "DEFAULT": true,
	"UNSET": true,
}

// IsReservedKeyword reports whether s (any case) is a reserved CQL keyword.
func IsReservedKeyword(s string) bool { return reservedKeywords[strings.ToUpper(s)] }

// QuoteIdentifier returns name as CQL prints it (ColumnIdentifier.maybeQuote):
// unchanged when it matches [a-z][a-z0-9_]* and is not a reserved keyword,
// otherwise in double quotes with inner double quotes doubled.
func QuoteIdentifier(name string) string {
	if isPlainIdentifier(name) && !IsReservedKeyword(name) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func isPlainIdentifier(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

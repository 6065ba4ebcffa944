package cql

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tokenKind classifies a lexical token.
type tokenKind uint8

const (
	tokEOF      tokenKind = iota
	tokIdent              // unquoted identifier or keyword (text as written)
	tokQuoted             // "quoted identifier" (text unescaped)
	tokString             // 'string' or $$string$$ (text unescaped)
	tokInteger            // -?digits
	tokFloat              // -?digits.digits[e±digits], digits e±digits
	tokHex                // 0x... (text without 0x)
	tokUUID               // 8-4-4-4-12 hex
	tokDuration           // 1h4m48s20ms or P... (text as written)
	tokSymbol             // punctuation: ( ) , ; . * = < > <= >= != + - [ ] { } : ?
)

func (k tokenKind) String() string {
	switch k {
	case tokEOF:
		return "end of input"
	case tokIdent:
		return "identifier"
	case tokQuoted:
		return "quoted identifier"
	case tokString:
		return "string"
	case tokInteger:
		return "integer"
	case tokFloat:
		return "float"
	case tokHex:
		return "blob"
	case tokUUID:
		return "uuid"
	case tokDuration:
		return "duration"
	}
	return "symbol"
}

// token is one lexical token with its byte span and position.
type token struct {
	kind       tokenKind
	text       string
	start, end int // byte offsets in the source
	line, col  int // 1-based position of start (col counts runes)
}

// SyntaxError is a CQL text that does not parse or does not fit the
// schema; Line and Column (1-based, columns in characters) locate it.
type SyntaxError struct {
	Line, Column int
	Msg          string
	Near         string
}

// Error implements error: "line L, column C: message near \"text\"".
func (e *SyntaxError) Error() string {
	if e.Near != "" {
		return fmt.Sprintf("line %d, column %d: %s near %q", e.Line, e.Column, e.Msg, e.Near)
	}
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// lexer splits CQL source into tokens.
type lexer struct {
	src       string
	i         int
	line, col int
}

func newLexer(src string) *lexer { return &lexer{src: src, line: 1, col: 1} }

func (l *lexer) errorAt(line, col int, format string, args ...any) error {
	near := l.src[l.i:]
	if len(near) > 20 {
		near = near[:20]
	}
	return &SyntaxError{Line: line, Column: col, Msg: fmt.Sprintf(format, args...), Near: near}
}

// advance moves past n bytes, tracking lines and columns.
func (l *lexer) advance(n int) {
	end := l.i + n
	for l.i < end {
		r, size := utf8.DecodeRuneInString(l.src[l.i:])
		if r == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
		l.i += size
	}
}

func isIdentStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || c >= '0' && c <= '9' || c == '_' }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// skipBlanks skips whitespace and comments (--, //, /* */).
func (l *lexer) skipBlanks() error {
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			l.advance(1)
		case strings.HasPrefix(l.src[l.i:], "--") || strings.HasPrefix(l.src[l.i:], "//"):
			n := strings.IndexByte(l.src[l.i:], '\n')
			if n < 0 {
				n = len(l.src) - l.i
			}
			l.advance(n)
		case strings.HasPrefix(l.src[l.i:], "/*"):
			line, col := l.line, l.col
			n := strings.Index(l.src[l.i+2:], "*/")
			if n < 0 {
				return l.errorAt(line, col, "unterminated comment")
			}
			l.advance(n + 4)
		default:
			return nil
		}
	}
	return nil
}

// uuidAt reports whether a UUID starts at i.
func uuidAt(s string, i int) bool {
	if len(s)-i < 36 {
		return false
	}
	for j := 0; j < 36; j++ {
		c := s[i+j]
		if j == 8 || j == 13 || j == 18 || j == 23 {
			if c != '-' {
				return false
			}
		} else if !isHexDigit(c) {
			return false
		}
	}
	return len(s)-i == 36 || !isIdentChar(s[i+36])
}

// durationUnitAt returns the length of a duration unit at s[i:], or 0.
func durationUnitAt(s string, i int) int {
	rest := strings.ToLower(s[i:min(i+3, len(s))]) // units have at most 3 bytes (µs)
	for _, u := range []string{"mo", "ms", "us", "ns", "µs", "y", "w", "d", "h", "m", "s"} {
		if strings.HasPrefix(rest, u) {
			return len(u)
		}
	}
	return 0
}

// durationLen returns the length of a standard-format duration literal
// (digits unit, repeated) at s[i:], or 0.
func durationLen(s string, i int) int {
	j := i
	for {
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k == j {
			break
		}
		u := durationUnitAt(s, k)
		if u == 0 {
			break
		}
		j = k + u
	}
	if j == i || j < len(s) && isIdentChar(s[j]) {
		return 0
	}
	return j - i
}

// next returns the next token.
func (l *lexer) next() (token, error) {
	if err := l.skipBlanks(); err != nil {
		return token{}, err
	}
	line, col, start := l.line, l.col, l.i
	tok := func(kind tokenKind, n int, text string) (token, error) {
		l.advance(n)
		return token{kind: kind, text: text, start: start, end: l.i, line: line, col: col}, nil
	}
	if l.i >= len(l.src) {
		return token{kind: tokEOF, start: l.i, end: l.i, line: line, col: col}, nil
	}
	s, c := l.src, l.src[l.i]
	switch {
	case uuidAt(s, l.i):
		return tok(tokUUID, 36, s[l.i:l.i+36])
	case c == '0' && l.i+1 < len(s) && (s[l.i+1] == 'x' || s[l.i+1] == 'X'):
		j := l.i + 2
		for j < len(s) && isHexDigit(s[j]) {
			j++
		}
		if j < len(s) && isIdentChar(s[j]) {
			return token{}, l.errorAt(line, col, "malformed blob literal")
		}
		return tok(tokHex, j-l.i, s[l.i+2:j])
	case isDigit(c) || c == '-' && l.i+1 < len(s) && isDigit(s[l.i+1]):
		j := l.i
		if c == '-' {
			j++
		}
		if n := durationLen(s, j); n > 0 {
			return tok(tokDuration, j-l.i+n, s[l.i:j+n])
		}
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		kind := tokInteger
		if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
			kind = tokFloat
			j++
			for j < len(s) && isDigit(s[j]) {
				j++
			}
		}
		if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
			k := j + 1
			if k < len(s) && (s[k] == '+' || s[k] == '-') {
				k++
			}
			if k < len(s) && isDigit(s[k]) {
				kind = tokFloat
				j = k
				for j < len(s) && isDigit(s[j]) {
					j++
				}
			}
		}
		if j < len(s) && isIdentChar(s[j]) {
			return token{}, l.errorAt(line, col, "malformed number")
		}
		return tok(kind, j-l.i, s[l.i:j])
	case isIdentStart(c):
		j := l.i
		for j < len(s) && isIdentChar(s[j]) {
			j++
		}
		word := s[l.i:j]
		if (word[0] == 'P' || word[0] == 'p') && isISODuration(word) {
			// ISO 8601 alternative format P0001-02-03T04:05:06 spans
			// symbols; take it whole.
			return tok(tokDuration, j-l.i, word)
		}
		if (word[0] == 'P' || word[0] == 'p') && j < len(s) && s[j] == '-' && len(word) > 1 {
			k := j
			for k < len(s) && (isIdentChar(s[k]) || s[k] == '-' || s[k] == ':') {
				k++
			}
			return tok(tokDuration, k-l.i, s[l.i:k])
		}
		return tok(tokIdent, j-l.i, word)
	case c == '"':
		var b strings.Builder
		for j := l.i + 1; j < len(s); j++ {
			if s[j] == '"' {
				if j+1 < len(s) && s[j+1] == '"' {
					b.WriteByte('"')
					j++
					continue
				}
				if b.Len() == 0 {
					return token{}, l.errorAt(line, col, "empty quoted identifier")
				}
				return tok(tokQuoted, j+1-l.i, b.String())
			}
			b.WriteByte(s[j])
		}
		return token{}, l.errorAt(line, col, "unterminated quoted identifier")
	case c == '\'':
		var b strings.Builder
		for j := l.i + 1; j < len(s); j++ {
			if s[j] == '\'' {
				if j+1 < len(s) && s[j+1] == '\'' {
					b.WriteByte('\'')
					j++
					continue
				}
				return tok(tokString, j+1-l.i, b.String())
			}
			b.WriteByte(s[j])
		}
		return token{}, l.errorAt(line, col, "unterminated string")
	case strings.HasPrefix(s[l.i:], "$$"):
		n := strings.Index(s[l.i+2:], "$$")
		if n < 0 {
			return token{}, l.errorAt(line, col, "unterminated $$ string")
		}
		return tok(tokString, n+4, s[l.i+2:l.i+2+n])
	}
	for _, sym := range []string{"<=", ">=", "!=", "(", ")", ",", ";", ".", "*", "=", "<", ">", "+", "-", "[", "]", "{", "}", ":", "?"} {
		if strings.HasPrefix(s[l.i:], sym) {
			return tok(tokSymbol, len(sym), sym)
		}
	}
	r, _ := utf8.DecodeRuneInString(s[l.i:])
	return token{}, l.errorAt(line, col, "unexpected character %q", r)
}

// isISODuration reports whether word is an ISO 8601 duration written
// without symbols (P1Y2M3DT4H5M6S, P2W).
func isISODuration(word string) bool {
	w := strings.ToUpper(word)
	if len(w) < 3 || w[0] != 'P' {
		return false
	}
	seenDigit := false
	for i := 1; i < len(w); i++ {
		c := w[i]
		switch {
		case isDigit(c):
			seenDigit = true
		case strings.IndexByte("YMWDTHS", c) >= 0:
		default:
			return false
		}
	}
	return seenDigit && !isDigit(w[len(w)-1])
}

// tokenize returns all tokens of src, ending with tokEOF.
func tokenize(src string) ([]token, error) {
	l := newLexer(src)
	var toks []token
	for {
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		if t.kind == tokEOF {
			return toks, nil
		}
	}
}

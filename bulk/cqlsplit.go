package bulk

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// maxStatementBytes bounds one CQL statement (a batch counts as one).
const maxStatementBytes = 64 << 20

// statementScanner cuts a stream of CQL text into statements at the ';'
// that ends them, outside string literals ('...' with ” escapes, $$...$$),
// quoted identifiers ("...") and comments (--, //, /* */). A batch (BEGIN
// ... APPLY BATCH;) is one statement. Only one statement is held in memory
// at a time.
type statementScanner struct {
	r    *bufio.Reader
	line int // line of the next byte
	buf  bytes.Buffer
	err  error
}

func newStatementScanner(r io.Reader) *statementScanner {
	return &statementScanner{r: bufio.NewReaderSize(r, 256<<10), line: 1}
}

// lexical states of the scanner
const (
	stCode = iota
	stString
	stDollar
	stQuoted
	stLineComment
	stBlockComment
)

// next returns the next statement (with its terminating ';', without
// leading blanks and comments) and the line it starts on; io.EOF at the
// end. Text after the last ';' that is not only blanks is returned as a
// final statement.
func (s *statementScanner) next() (stmt string, line int, err error) {
	if s.err != nil {
		return "", 0, s.err
	}
	s.buf.Reset()
	state := stCode
	startLine := 0
	var prev byte
	for {
		c, err := s.r.ReadByte()
		if err == io.EOF {
			s.err = io.EOF
			if startLine == 0 {
				return "", 0, io.EOF
			}
			switch state {
			case stString, stDollar, stQuoted, stBlockComment:
				return "", 0, fmt.Errorf("line %d: statement not terminated (an unclosed quote or comment)", startLine)
			}
			return s.buf.String(), startLine, nil
		}
		if err != nil {
			s.err = err
			return "", 0, err
		}
		if c == '\n' {
			s.line++
		}
		blank := c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
		if startLine == 0 && state == stCode && blank {
			prev = c
			continue
		}
		s.buf.WriteByte(c)
		if s.buf.Len() > maxStatementBytes {
			s.err = fmt.Errorf("line %d: statement longer than %d bytes", startLine, maxStatementBytes)
			return "", 0, s.err
		}
		switch state {
		case stCode:
			switch {
			case c == '\'':
				state = stString
			case c == '"':
				state = stQuoted
			case c == '$' && prev == '$':
				state = stDollar
				c = 0 // "$$$" does not close at once
			case c == '-' && prev == '-', c == '/' && prev == '/':
				state = stLineComment
			case c == '*' && prev == '/':
				state = stBlockComment
				c = 0 // "/*/" does not close
			case c == ';':
				if !s.inBatch() {
					return s.buf.String(), startLine, nil
				}
			}
			if startLine == 0 && state != stLineComment && state != stBlockComment && c != '-' && c != '/' {
				startLine = s.line
				if c == '\n' {
					startLine--
				}
			}
		case stString:
			if c == '\'' {
				// '' is an escaped quote: peek at the next byte.
				if b, err := s.r.Peek(1); err == nil && b[0] == '\'' {
					s.r.ReadByte()
					s.buf.WriteByte('\'')
				} else {
					state = stCode
				}
			}
		case stQuoted:
			if c == '"' {
				if b, err := s.r.Peek(1); err == nil && b[0] == '"' {
					s.r.ReadByte()
					s.buf.WriteByte('"')
				} else {
					state = stCode
				}
			}
		case stDollar:
			if c == '$' && prev == '$' {
				state = stCode
				c = 0
			}
		case stLineComment:
			if c == '\n' {
				state = stCode
				if startLine == 0 {
					s.buf.Reset() // drop a leading comment
				}
			}
		case stBlockComment:
			if c == '/' && prev == '*' {
				state = stCode
				c = 0
				if startLine == 0 {
					s.buf.Reset()
				}
			}
		}
		prev = c
	}
}

// inBatch reports whether the buffered statement is a batch that has not
// reached APPLY BATCH yet (its inner statements end with ';' too).
func (s *statementScanner) inBatch() bool {
	b := s.buf.Bytes()
	if len(b) < 5 || !bytes.EqualFold(b[:5], []byte("BEGIN")) {
		return false
	}
	body := b[:len(b)-1]
	words := bytes.Fields(body[max(0, len(body)-64):])
	n := len(words)
	return n < 2 || !bytes.EqualFold(words[n-2], []byte("APPLY")) || !bytes.EqualFold(words[n-1], []byte("BATCH"))
}

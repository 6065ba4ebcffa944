package jsondump

import (
	"errors"
	"fmt"
	"io"
)

// scanner is a small streaming JSON reader: it keeps a window of the input
// and hands out the raw bytes of values without allocating. A slice it
// returns is valid only until its next call (the window slides when it
// refills). A single value longer than maxValue bytes is an error, so a
// hostile input cannot make it buffer without bound.
type scanner struct {
	r        io.Reader
	buf      []byte
	pos      int   // next unread byte in buf
	base     int64 // input offset of buf[0]
	eof      bool
	rerr     error // read error other than io.EOF
	maxValue int
	key      []byte // the last object key (copied)
}

const (
	scannerMinRead = 32 << 10
	maxDepth       = 512
)

func newScanner(r io.Reader, maxValue int) *scanner {
	return &scanner{r: r, buf: make([]byte, 0, 2*scannerMinRead), maxValue: maxValue}
}

// offset is the input offset of the next unread byte.
func (s *scanner) offset() int64 { return s.base + int64(s.pos) }

// fill tries to make n bytes available from pos, sliding the window so
// that pos becomes 0 if it has to read; it reports whether it succeeded.
func (s *scanner) fill(n int) bool {
	for len(s.buf)-s.pos < n && !s.eof {
		if s.pos > 0 {
			m := copy(s.buf, s.buf[s.pos:])
			s.buf = s.buf[:m]
			s.base += int64(s.pos)
			s.pos = 0
		}
		if cap(s.buf)-len(s.buf) < scannerMinRead {
			nb := make([]byte, len(s.buf), 2*cap(s.buf)+scannerMinRead)
			copy(nb, s.buf)
			s.buf = nb
		}
		m, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+m]
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.rerr = err
			}
		}
	}
	return len(s.buf)-s.pos >= n
}

var errUnexpectedEOF = errors.New("unexpected end of input")

func (s *scanner) eofError() error {
	if s.rerr != nil {
		return s.rerr
	}
	return errUnexpectedEOF
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// peek skips whitespace and returns the next byte without consuming it;
// ok is false at the end of the input.
func (s *scanner) peek() (byte, bool) {
	for {
		for s.pos < len(s.buf) {
			if c := s.buf[s.pos]; !isSpace(c) {
				return c, true
			}
			s.pos++
		}
		if !s.fill(1) {
			return 0, false
		}
	}
}

func describeByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// expect consumes the byte c after optional whitespace.
func (s *scanner) expect(c byte) error {
	got, ok := s.peek()
	if !ok {
		return s.eofError()
	}
	if got != c {
		return fmt.Errorf("found %s, want %q", describeByte(got), c)
	}
	s.pos++
	return nil
}

// nextKey advances to the next field of an object whose '{' was consumed.
// It returns the field name's raw string token (quotes included, copied to
// s.key) and consumes the ':'; ok is false, and the '}' consumed, at the
// end of the object.
func (s *scanner) nextKey(first *bool) (key []byte, ok bool, err error) {
	c, have := s.peek()
	if !have {
		return nil, false, s.eofError()
	}
	if c == '}' {
		s.pos++
		return nil, false, nil
	}
	if !*first {
		if c != ',' {
			return nil, false, fmt.Errorf("found %s, want ',' or '}' in an object", describeByte(c))
		}
		s.pos++
		if c, have = s.peek(); !have {
			return nil, false, s.eofError()
		}
	}
	*first = false
	if c != '"' {
		return nil, false, fmt.Errorf("found %s, want a field name", describeByte(c))
	}
	tok, err := s.scanString()
	if err != nil {
		return nil, false, err
	}
	s.key = append(s.key[:0], tok...)
	if err := s.expect(':'); err != nil {
		return nil, false, err
	}
	return s.key, true, nil
}

// nextElem advances to the next element of an array whose '[' was
// consumed; ok is false, and the ']' consumed, at its end.
func (s *scanner) nextElem(first *bool) (ok bool, err error) {
	c, have := s.peek()
	if !have {
		return false, s.eofError()
	}
	if c == ']' {
		s.pos++
		return false, nil
	}
	if !*first {
		if c != ',' {
			return false, fmt.Errorf("found %s, want ',' or ']' in an array", describeByte(c))
		}
		s.pos++
		if _, have = s.peek(); !have {
			return false, s.eofError()
		}
	}
	*first = false
	return true, nil
}

// more makes at least one byte beyond buf[i] available, keeping the value
// that starts at pos contiguous; it returns the adjusted i.
func (s *scanner) more(i int) (int, error) {
	rel := i - s.pos
	if rel > s.maxValue {
		return 0, fmt.Errorf("value longer than the %d-byte limit", s.maxValue)
	}
	if !s.fill(rel + 1) {
		return 0, s.eofError()
	}
	return s.pos + rel, nil
}

// scanString consumes the string token at pos and returns it.
func (s *scanner) scanString() ([]byte, error) {
	end, err := s.stringEnd(s.pos)
	if err != nil {
		return nil, err
	}
	tok := s.buf[s.pos:end]
	s.pos = end
	return tok, nil
}

// stringEnd returns the index just past the string token starting at
// buf[i] ('"'), refilling as needed (pos must be at or before i).
func (s *scanner) stringEnd(i int) (int, error) {
	i++
	for {
		for i < len(s.buf) {
			c := s.buf[i]
			switch {
			case c == '"':
				return i + 1, nil
			case c == '\\':
				if i+1 >= len(s.buf) {
					var err error
					if i, err = s.more(i + 1); err != nil {
						return 0, err
					}
					i--
				}
				i += 2
				continue
			case c < 0x20:
				return 0, fmt.Errorf("control character 0x%02x in a string", c)
			}
			i++
		}
		var err error
		if i, err = s.more(i); err != nil {
			return 0, err
		}
	}
}

// rawValue consumes the next value and returns its raw bytes.
func (s *scanner) rawValue() ([]byte, error) {
	c, ok := s.peek()
	if !ok {
		return nil, s.eofError()
	}
	var end int
	var err error
	switch {
	case c == '"':
		end, err = s.stringEnd(s.pos)
	case c == '{' || c == '[':
		end, err = s.compositeEnd()
	default:
		end, err = s.literalEnd()
	}
	if err != nil {
		return nil, err
	}
	tok := s.buf[s.pos:end]
	s.pos = end
	return tok, nil
}

// skipValue consumes the next value.
func (s *scanner) skipValue() error {
	_, err := s.rawValue()
	return err
}

// compositeEnd returns the index just past the object or array at pos,
// checking that brackets balance (not full JSON grammar: the content is
// parsed again by whoever uses it).
func (s *scanner) compositeEnd() (int, error) {
	var stack [maxDepth]byte
	depth := 0
	i := s.pos
	for {
		for i < len(s.buf) {
			c := s.buf[i]
			switch c {
			case '{', '[':
				if depth == maxDepth {
					return 0, fmt.Errorf("value nested deeper than %d", maxDepth)
				}
				stack[depth] = c
				depth++
			case '}', ']':
				want := byte('{')
				if c == ']' {
					want = '['
				}
				if depth == 0 || stack[depth-1] != want {
					return 0, fmt.Errorf("mismatched %q", c)
				}
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			case '"':
				end, err := s.stringEnd(i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			}
			i++
		}
		var err error
		if i, err = s.more(i); err != nil {
			return 0, err
		}
	}
}

// literalEnd returns the index just past the number, true, false or null
// at pos.
func (s *scanner) literalEnd() (int, error) {
	i := s.pos
	for {
		for i < len(s.buf) {
			c := s.buf[i]
			if c == ',' || c == '}' || c == ']' || c == ':' || isSpace(c) {
				if i == s.pos {
					return 0, fmt.Errorf("found %s, want a value", describeByte(c))
				}
				return i, nil
			}
			if c == '"' || c == '{' || c == '[' {
				return 0, fmt.Errorf("found %s inside a literal", describeByte(c))
			}
			i++
		}
		if i-s.pos > 64 {
			return 0, errors.New("literal too long")
		}
		rel := i - s.pos
		if !s.fill(rel + 1) {
			if rel == 0 {
				return 0, s.eofError()
			}
			return s.pos + rel, nil
		}
		i = s.pos + rel
	}
}

// validLiteral reports whether b is a JSON number, true, false or null.
func validLiteral(b []byte) bool {
	switch string(b) {
	case "true", "false", "null":
		return true
	}
	return validNumber(b)
}

// validNumber checks the JSON number grammar.
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	return i == len(b)
}

package bulk

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unsafe"
)

// csvReader reads RFC 4180 CSV as encoding/csv does with its defaults
// (quoted fields with "" escapes that may span lines; \r\n read as \n, in
// quoted fields too; empty lines skipped; no lazy quotes) without allocating per record: the
// fields of a record are strings viewing a buffer that the next Read
// reuses, so callers must copy what they keep.
type csvReader struct {
	r     *bufio.Reader
	comma byte
	// line is the number of the line the last record started on; next is
	// the line the next read starts on.
	line, next int
	buf        []byte
	ends       []int
	fields     []string
}

// csvError is a malformed record, located by line.
type csvError struct {
	Line int
	Err  error
}

func (e *csvError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

var (
	errBareQuote  = errors.New(`bare " in a field that is not quoted (quote the field and double the quote)`)
	errQuoteField = errors.New(`extraneous or missing " in a quoted field`)
)

func newCSVReader(r io.Reader, comma byte) *csvReader {
	return &csvReader{r: bufio.NewReaderSize(r, 256<<10), comma: comma, next: 1}
}

// readLine returns the next line with its end of line, "" at EOF. Lines
// longer than the bufio buffer are gathered in scratch.
func (c *csvReader) readLine(scratch *[]byte) ([]byte, error) {
	line, err := c.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		*scratch = append((*scratch)[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = c.r.ReadSlice('\n')
			*scratch = append(*scratch, line...)
		}
		line = *scratch
	}
	if len(line) > 0 && err == io.EOF {
		err = nil
		if line[len(line)-1] == '\r' { // a \r before EOF is dropped
			line = line[:len(line)-1]
		}
		c.next++
	} else if len(line) > 0 {
		c.next++
	}
	// \r\n reads as \n, in quoted fields too.
	if n := len(line); n >= 2 && line[n-2] == '\r' && line[n-1] == '\n' {
		line[n-2] = '\n'
		line = line[:n-1]
	}
	return line, err
}

// trimEOL drops a trailing \n (readLine made \r\n one).
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}

// Read returns the fields of the next record; io.EOF at the end.
func (c *csvReader) Read() ([]string, error) {
	var scratch []byte
	var line []byte
	var err error
	for {
		c.line = c.next
		line, err = c.readLine(&scratch)
		if err != nil {
			return nil, err
		}
		if len(trimEOL(line)) > 0 {
			break
		}
		if len(line) == 0 {
			return nil, io.EOF
		}
	}
	c.buf, c.ends = c.buf[:0], c.ends[:0]
	for {
		if len(line) == 0 || line[0] != '"' {
			// An unquoted field runs to the next comma or the end of line.
			i := bytes.IndexByte(line, c.comma)
			field := line
			if i >= 0 {
				field = line[:i]
			} else {
				field = trimEOL(line)
			}
			if bytes.IndexByte(field, '"') >= 0 {
				return nil, &csvError{Line: c.line, Err: errBareQuote}
			}
			c.buf = append(c.buf, field...)
			c.ends = append(c.ends, len(c.buf))
			if i < 0 {
				break
			}
			line = line[i+1:]
			continue
		}
		// A quoted field, possibly over several lines.
		line = line[1:]
		for {
			i := bytes.IndexByte(line, '"')
			if i < 0 {
				c.buf = append(c.buf, line...)
				if line, err = c.readLine(&scratch); err != nil || len(line) == 0 {
					return nil, &csvError{Line: c.line, Err: errQuoteField}
				}
				continue
			}
			c.buf = append(c.buf, line[:i]...)
			line = line[i+1:]
			if len(line) > 0 && line[0] == '"' { // "" is a quote
				c.buf = append(c.buf, '"')
				line = line[1:]
				continue
			}
			break
		}
		c.ends = append(c.ends, len(c.buf))
		rest := trimEOL(line)
		if len(rest) == 0 {
			break
		}
		if rest[0] != c.comma {
			return nil, &csvError{Line: c.line, Err: errQuoteField}
		}
		line = line[1:]
	}
	c.fields = c.fields[:0]
	start := 0
	for _, end := range c.ends {
		c.fields = append(c.fields, bytesView(c.buf[start:end]))
		start = end
	}
	return c.fields, nil
}

// bytesView returns b as a string without copying; the string is valid
// until b's memory is reused.
func bytesView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"unicode/utf8"
)

// ReadText reads a Markdown file Atomic loads at start (an agent, a
// command) and refuses what is not one: anything but a regular file (or
// a link to one), since a named pipe or a device would block start-up or
// never end, and bytes that are not UTF-8, since a binary file read as
// text would load as garbage under its file name.
func ReadText(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		return nil, notUTF8(data)
	}
	return data, nil
}

// notUTF8 names the line of the first byte that is not UTF-8.
func notUTF8(data []byte) error {
	i := 0
	for i < len(data) {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	line := 1 + bytes.Count(data[:i], []byte("\n"))
	return fmt.Errorf("line %d: not UTF-8 text (byte %#02x at offset %d): a binary file or another encoding", line, data[min(i, len(data)-1)], i)
}

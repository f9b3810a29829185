package cli

import (
	"bytes"
	"io"
	"sync"
)

// lineMux lets several writers share one output a whole line at a time:
// the run's stream (whose buffered encoder may split a line over two
// writes) and the control responses answered meanwhile.
type lineMux struct {
	mu sync.Mutex
	w  io.Writer
}

// source is one writer of a lineMux: it keeps its unfinished line until
// the newline comes.
func (m *lineMux) source() io.Writer { return &lineSource{m: m} }

type lineSource struct {
	m       *lineMux
	pending []byte
}

// Write holds the mux's lock throughout: a source may be written from
// more than one goroutine too.
func (s *lineSource) Write(p []byte) (int, error) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	i := bytes.LastIndexByte(p, '\n')
	if i < 0 {
		s.pending = append(s.pending, p...)
		return len(p), nil
	}
	out := append(s.pending, p[:i+1]...)
	s.pending = append([]byte(nil), p[i+1:]...)
	if _, err := s.m.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

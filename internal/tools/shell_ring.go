package tools

// ring keeps the last max bytes written to it and counts every byte, so a
// reader that remembers an offset gets what was written since (or what is
// still kept of it). It grows as output comes, up to max: a quiet shell
// costs nothing.
type ring struct {
	buf   []byte // in order until len(buf) == max, then wrapped at w
	max   int
	w     int   // next write position once full
	total int64 // bytes ever written
}

func (r *ring) write(p []byte) {
	r.total += int64(len(p))
	if len(p) >= r.max {
		r.buf = append(r.buf[:0], p[len(p)-r.max:]...)
		r.w = 0
		return
	}
	if room := r.max - len(r.buf); room > 0 {
		n := min(room, len(p))
		r.buf = append(r.buf, p[:n]...)
		p = p[n:]
	}
	for len(p) > 0 {
		n := copy(r.buf[r.w:], p)
		p = p[n:]
		r.w = (r.w + n) % r.max
	}
}

// since returns a copy of the bytes written from offset off on, and how
// many of them are no longer kept.
func (r *ring) since(off int64) (out []byte, lost int64) {
	start := r.total - int64(len(r.buf))
	if off < start {
		lost, off = start-off, start
	}
	n := int(r.total - off)
	if n <= 0 {
		return nil, lost
	}
	out = make([]byte, 0, n)
	ordered := [2][]byte{r.buf[r.w:], r.buf[:r.w]}
	if len(r.buf) < r.max {
		ordered = [2][]byte{r.buf, nil}
	}
	skip := len(r.buf) - n
	for _, part := range ordered {
		if skip >= len(part) {
			skip -= len(part)
			continue
		}
		out = append(out, part[skip:]...)
		skip = 0
	}
	return out, lost
}

// Package redact removes secrets from the text Atomic writes to disk or
// exports (the session store, the lifecycle log, `atomic sessions export`,
// the OpenTelemetry export): the values it knows are secret (the API keys
// in use, every credential in the environment) and anything shaped like a
// provider's key, which catches a key the user typed in a prompt or a tool
// printed. Every writer goes through one Redactor, so none can skip it.
package redact

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Mask replaces each secret.
const Mask = "[redacted]"

// MinKnown is the shortest known value redacted: a shorter one would mask
// ordinary words.
const MinKnown = 8

// Redactor masks known secret values and key-shaped text. The zero value
// and a nil *Redactor mask key-shaped text only. It is safe for concurrent
// use.
type Redactor struct {
	olds  []string          // the known values, longest first
	raw   [][]byte          // olds as bytes, for Bytes
	known *strings.Replacer // masks olds; nil when there are none
}

// New returns a Redactor of the secret values known (values shorter than
// MinKnown are ignored). Each value is also masked as JSON writes it (a
// value with a quote, backslash or control character), since events and
// histories are stored as JSON.
func New(known []string) *Redactor {
	var olds []string
	for _, v := range known {
		if len(v) < MinKnown {
			continue
		}
		olds = append(olds, v, jsonForm(v, true), jsonForm(v, false))
	}
	if len(olds) == 0 {
		return &Redactor{}
	}
	// The longest first: the Replacer tries them in order at each
	// position, so a value holding a shorter one is masked whole.
	slices.SortFunc(olds, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	olds = slices.Compact(olds)
	pairs := make([]string, 0, 2*len(olds))
	raw := make([][]byte, len(olds))
	for i, o := range olds {
		pairs = append(pairs, o, Mask)
		raw[i] = []byte(o)
	}
	return &Redactor{olds: olds, raw: raw, known: strings.NewReplacer(pairs...)}
}

// jsonForm is v as it stands inside a JSON string: escaping <, > and &
// (json.Marshal) or not (the event encoder).
func jsonForm(v string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if enc.Encode(v) != nil {
		return v
	}
	q := bytes.TrimSpace(b.Bytes())
	return string(q[1 : len(q)-1])
}

// String returns s with every secret masked (s itself when it holds none).
func (r *Redactor) String(s string) string {
	if r != nil {
		// Contains is far cheaper than Replace, which always copies.
		for _, o := range r.olds {
			if strings.Contains(s, o) {
				s = r.known.Replace(s)
				break
			}
		}
	}
	return maskKeys(s)
}

// Bytes returns b with every secret masked (b itself when it holds none:
// then nothing is copied).
func (r *Redactor) Bytes(b []byte) []byte {
	if !r.knownIn(b) {
		if _, _, ok := nextKey(b, 0, -1); !ok {
			return b
		}
	}
	return []byte(r.String(string(b)))
}

// knownIn reports whether b holds a known value.
func (r *Redactor) knownIn(b []byte) bool {
	if r == nil {
		return false
	}
	for _, o := range r.raw {
		if bytes.Contains(b, o) {
			return true
		}
	}
	return false
}

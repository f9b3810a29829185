// Package lazy holds values built on first use (regular expressions,
// tables), declared so that they cost nothing at start.
//
// Go runs every linked package's initialisation in every process, and the
// first instruction of a package's init pages in (with the kernel's
// fault-around) 64 KB of the binary around it: a package-level
// sync.OnceValue, map literal or regexp.MustCompile is a call at init, so
// a package a run never uses still costs that run resident memory. A
// package-level Regexp{Expr: ...} or Value{New: f} (f a top-level
// function) is static data: no init code at all.
package lazy

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled the first time Get is called.
// Declare it at package level as a composite literal:
//
//	var word = lazy.Regexp{Expr: `\w+`}
type Regexp struct {
	Expr string
	once sync.Once
	re   *regexp.Regexp
}

// Get returns the compiled expression; an invalid Expr panics on first
// use, as regexp.MustCompile does.
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.Expr) })
	return r.re
}

// Value is a value built by New the first time Get is called. Declare it
// at package level with a top-level function (a closure capturing nothing
// is static too):
//
//	var index = lazy.Value[map[string]int]{New: buildIndex}
type Value[T any] struct {
	New  func() T
	once sync.Once
	v    T
}

// Get returns the value, building it on the first call.
func (l *Value[T]) Get() T {
	l.once.Do(func() { l.v = l.New() })
	return l.v
}

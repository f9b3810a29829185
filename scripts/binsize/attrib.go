package main

import (
	"bufio"
	"debug/elf"
	"fmt"
	"io"
	"sort"
	"strings"
)

// owners maps a package import path to the module that provides it ("std"
// for the standard library). "main" is the command's own package.
type owners map[string]string

// readOwners parses `go list -deps -f '{{.ImportPath}} {{module or std}}'`
// lines.
func readOwners(r io.Reader, mainModule string) (owners, error) {
	o := owners{"main": mainModule}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		o[f[0]] = f[1]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the package list: %w", err)
	}
	return o, nil
}

// packageOf names the package a linker symbol belongs to: the longest known
// import path that prefixes the symbol's name up to a dot. Type-algorithm
// and itab symbols belong to the package of their (first) type; generic
// instantiations to the package of the generic. It returns "" when no known
// package matches.
func (o owners) packageOf(sym string) string {
	n := sym
	for _, p := range []string{"type:.eq.", "type:.hash.", "type:", "go:itab."} {
		if strings.HasPrefix(n, p) {
			n = n[len(p):]
			break
		}
	}
	n = strings.TrimLeft(n, "*")
	// The linker escapes dots in a path's last element: gopkg.in/yaml%2ev3.
	n = strings.ReplaceAll(n, "%2e", ".")
	if i := strings.IndexAny(n, "[,"); i >= 0 {
		n = n[:i]
	}
	best := ""
	for i := 0; i < len(n); i++ {
		if n[i] == '.' {
			if _, ok := o[n[:i]]; ok {
				best = n[:i]
			}
		}
	}
	return best
}

// cost is what one module or package adds to the binary, in bytes.
type cost struct {
	Name   string
	Text   int64 // machine code
	Data   int64 // read-only and writable data that the file holds (not bss)
	Meta   int64 // share of pclntab and funcdata, estimated from Text
	Symtab int64 // .symtab entry and .strtab name; gone when stripped
}

// Stripped is the estimated cost in a stripped binary.
func (c cost) Stripped() int64 { return c.Text + c.Data + c.Meta }

// Unstripped adds the symbol table (DWARF is not attributed).
func (c cost) Unstripped() int64 { return c.Stripped() + c.Symtab }

// report is the attribution of one unstripped binary.
type report struct {
	Costs     []cost // largest stripped cost first
	FileSize  int64
	DWARF     int64 // bytes of .debug_* sections (compressed as stored)
	Symtab    int64 // .symtab + .strtab
	SharedRaw int64 // pclntab and funcdata spread over Meta
}

// sharedMeta reports the symbols that aggregate per-function metadata of
// every package: they are spread over the packages by code size.
func sharedMeta(name string) bool {
	return name == "go:func.*" || name == "runtime.findfunctab"
}

// attribute reads the ELF symbol table of an unstripped Go binary and sums
// its symbols per group; group maps a package to its group (its module, or
// itself for a per-package table).
func attribute(f *elf.File, fileSize int64, o owners, group func(pkg, mod string) string) (report, error) {
	syms, err := f.Symbols()
	if err != nil {
		return report{}, fmt.Errorf("reading the symbol table (is the binary stripped?): %w", err)
	}
	r := report{FileSize: fileSize}
	var pclntab int64
	for _, s := range f.Sections {
		switch {
		case strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_"):
			r.DWARF += int64(s.FileSize) // compressed as stored
		case s.Name == ".symtab" || s.Name == ".strtab":
			r.Symtab += int64(s.FileSize)
		case s.Name == ".gopclntab":
			pclntab = int64(s.Size)
		}
	}
	byName := map[string]*cost{}
	get := func(g string) *cost {
		c := byName[g]
		if c == nil {
			c = &cost{Name: g}
			byName[g] = c
		}
		return c
	}
	var text int64
	shared := pclntab
	for _, s := range syms {
		if int(s.Section) <= 0 || int(s.Section) >= len(f.Sections) {
			continue
		}
		sec := f.Sections[s.Section]
		pkg := o.packageOf(s.Name)
		g := "(unattributed)"
		if pkg != "" {
			g = group(pkg, o[pkg])
		}
		c := get(g)
		c.Symtab += 24 + int64(len(s.Name)) + 1
		if sec.Type == elf.SHT_NOBITS || sec.Name == ".gopclntab" {
			continue // bss takes no file bytes; pclntab is shared below
		}
		if sharedMeta(s.Name) {
			shared += int64(s.Size)
			continue
		}
		if sec.Flags&elf.SHF_EXECINSTR != 0 {
			c.Text += int64(s.Size)
			text += int64(s.Size)
		} else {
			c.Data += int64(s.Size)
		}
	}
	r.SharedRaw = shared
	for _, c := range byName {
		if text > 0 {
			c.Meta = shared * c.Text / text
		}
		r.Costs = append(r.Costs, *c)
	}
	sort.Slice(r.Costs, func(i, j int) bool {
		if r.Costs[i].Stripped() != r.Costs[j].Stripped() {
			return r.Costs[i].Stripped() > r.Costs[j].Stripped()
		}
		return r.Costs[i].Name < r.Costs[j].Name
	})
	return r, nil
}

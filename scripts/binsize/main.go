// Command binsize prints what each module (or package) costs in a Go
// binary: its code, its data, its estimated share of the pclntab and
// funcdata (spread by code size), and its symbol-table entries (gone when
// stripped). Type descriptors and string data have no symbols of their own
// and are reported as one remainder line. scripts/binsize.sh builds the
// binaries and the package list it needs.
package main

import (
	"debug/elf"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	bin := flag.String("bin", "", "unstripped binary to attribute")
	stripped := flag.String("stripped", "", "the same build stripped (-ldflags='-s -w'), for its size")
	pkgs := flag.String("pkgs", "", "file of `go list -deps` lines: import path and module (or std)")
	mainMod := flag.String("main", "", "module path of the command's main package")
	byPkg := flag.Bool("packages", false, "one row per package instead of per module")
	top := flag.Int("n", 30, "rows to print (0: all)")
	flag.Parse()
	if err := run(os.Stdout, *bin, *stripped, *pkgs, *mainMod, *byPkg, *top); err != nil {
		fmt.Fprintln(os.Stderr, "binsize:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, bin, stripped, pkgs, mainMod string, byPkg bool, top int) error {
	pf, err := os.Open(pkgs)
	if err != nil {
		return fmt.Errorf("opening the package list: %w", err)
	}
	defer pf.Close()
	o, err := readOwners(pf, mainMod)
	if err != nil {
		return err
	}
	st, err := os.Stat(bin)
	if err != nil {
		return fmt.Errorf("reading the binary: %w", err)
	}
	f, err := elf.Open(bin)
	if err != nil {
		return fmt.Errorf("opening the binary as ELF: %w", err)
	}
	defer f.Close()
	group := func(_, mod string) string { return mod }
	if byPkg {
		group = func(pkg, _ string) string { return pkg }
	}
	r, err := attribute(f, st.Size(), o, group)
	if err != nil {
		return err
	}
	var strippedSize int64
	if stripped != "" {
		s, err := os.Stat(stripped)
		if err != nil {
			return fmt.Errorf("reading the stripped binary: %w", err)
		}
		strippedSize = s.Size()
	}
	return printReport(w, r, strippedSize, top)
}

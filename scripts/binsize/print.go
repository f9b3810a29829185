package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// printReport writes the totals and the cost table, largest first.
func printReport(w io.Writer, r report, strippedSize int64, top int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "unstripped\t%s\tbytes\t\n", comma(r.FileSize))
	if strippedSize > 0 {
		fmt.Fprintf(tw, "stripped (-s -w)\t%s\tbytes\t\n", comma(strippedSize))
	}
	fmt.Fprintf(tw, "DWARF (not attributed)\t%s\tbytes\t\n", comma(r.DWARF))
	fmt.Fprintf(tw, "symtab+strtab\t%s\tbytes\t\n", comma(r.Symtab))
	fmt.Fprintln(tw, "\t\t\t")
	fmt.Fprintln(tw, "stripped\tunstripped\ttext\tdata\tpcln(est)\tsymtab\t")
	var sum int64
	for i, c := range r.Costs {
		sum += c.Stripped()
		if top > 0 && i >= top {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t  %s\n", comma(c.Stripped()), comma(c.Unstripped()),
			comma(c.Text), comma(c.Data), comma(c.Meta), comma(c.Symtab), c.Name)
	}
	if top > 0 && len(r.Costs) > top {
		fmt.Fprintf(tw, "\t\t\t\t\t\t  (%d more rows)\n", len(r.Costs)-top)
	}
	if strippedSize > 0 {
		fmt.Fprintf(tw, "%s\t\t\t\t\t\t  (type descriptors, strings, headers: no symbols of their own)\n", comma(strippedSize-sum))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the table: %w", err)
	}
	return nil
}

// comma formats n with thousands separators.
func comma(n int64) string {
	s := fmt.Sprint(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := ""
	for len(s) > 3 {
		out = "," + s[len(s)-3:] + out
		s = s[:len(s)-3]
	}
	out = s + out
	if neg {
		out = "-" + out
	}
	return out
}

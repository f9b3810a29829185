package main

import (
	"debug/elf"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSymbolsBelongToTheLongestKnownPackageOfTheirName(t *testing.T) {
	o, err := readOwners(strings.NewReader(strings.Join([]string{
		"gopkg.in/yaml.v3 gopkg.in/yaml.v3",
		"github.com/nats-io/nats.go github.com/nats-io/nats.go",
		"github.com/nats-io/nats.go/jetstream github.com/nats-io/nats.go",
		"github.com/openai/openai-go/v3 github.com/openai/openai-go/v3",
		"github.com/openai/openai-go/v3/packages/param github.com/openai/openai-go/v3",
		"sync/atomic std",
		"fmt std",
	}, "\n")), "example.com/m")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ sym, want string }{
		{"gopkg.in/yaml%2ev3.(*parser).parse", "gopkg.in/yaml.v3"},
		{"github.com/nats-io/nats%2ego.(*Conn).Publish", "github.com/nats-io/nats.go"},
		{"github.com/nats-io/nats.go/jetstream.(*stream).Info", "github.com/nats-io/nats.go/jetstream"},
		{"github.com/openai/openai-go/v3/packages/param.MarshalWithExtras[go.shape.struct { X fmt.Stringer }]", "github.com/openai/openai-go/v3/packages/param"},
		{"type:.eq.github.com/openai/openai-go/v3.ChatCompletionNewParams", "github.com/openai/openai-go/v3"},
		{"go:itab.*github.com/nats-io/nats%2ego.js,github.com/nats-io/nats%2ego.JetStreamContext", "github.com/nats-io/nats.go"},
		{"sync/atomic.(*Pointer[github.com/nats-io/nats.go.Conn]).Load", "sync/atomic"},
		{"main.main", "main"},
		{"runtime.mallocgc", ""},
		{"aeshashbody", ""},
	}
	for _, tt := range tests {
		if got := o.packageOf(tt.sym); got != tt.want {
			t.Errorf("packageOf(%q) = %q, want %q", tt.sym, got, tt.want)
		}
	}
	if o["main"] != "example.com/m" {
		t.Errorf("main belongs to %q, want the main module", o["main"])
	}
}

func TestTheTestBinaryItselfIsAttributedWithoutItsBSS(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Skipf("not an ELF binary: %v", err)
	}
	defer f.Close()
	st, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	o := owners{"runtime": "std", "testing": "std", "debug/elf": "std"}
	r, err := attribute(f, st.Size(), o, func(_, mod string) string { return mod })
	if err != nil {
		t.Skipf("no symbol table (stripped test binary): %v", err)
	}
	var std, total int64
	for _, c := range r.Costs {
		total += c.Text + c.Data
		if c.Name == "std" {
			std = c.Text
		}
	}
	if std == 0 {
		t.Errorf("no code attributed to std: %+v", r.Costs)
	}
	// Code and data are in the file: they cannot exceed it (bss, which
	// go tool nm also lists as D, takes no file bytes and is left out).
	if total <= 0 || total > st.Size() {
		t.Errorf("attributed %d bytes of a %d-byte file", total, st.Size())
	}
	if len(r.Costs) < 2 || r.Costs[0].Stripped() < r.Costs[len(r.Costs)-1].Stripped() {
		t.Errorf("costs not sorted largest first: %+v", r.Costs)
	}
}

func TestCommaGroupsThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567", 84093697: "84,093,697"} {
		if got := comma(n); got != want {
			t.Errorf("comma(%d) = %q, want %q", n, got, want)
		}
	}
}

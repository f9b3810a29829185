package claudecode

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

// The CLI names its conversation in every system/init line (one per turn
// of the lead); the store is told the id once, and again only if it
// changes.
func TestTheCLIsConversationIDFromItsInitLinesIsToldOncePerID(t *testing.T) {
	for _, c := range []struct{ file, id string }{
		{"claude-subagents.jsonl", "8ec68de5-aac4-4558-9ec7-91d409ded570"}, // four init lines
		{"claude-slowanswer.jsonl", "f42e3abe-726d-4df4-b8e8-675c8ae19c6a"},
		{"claude-partial.jsonl", "63b1c994-8599-4478-9e48-269c2b370e1b"},
	} {
		t.Run(c.file, func(t *testing.T) {
			tr := newTranslator("s1", "lead", event.SinkFunc(func(event.Event) {}), nil)
			var told []string
			tr.cfg.OnCLISession = func(id string) { told = append(told, id) }
			f, err := os.Open(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				if _, err := tr.feed(sc.Bytes()); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(told, []string{c.id}) {
				t.Fatalf("told %q; want [%s] once", told, c.id)
			}
		})
	}
	t.Run("a new conversation", func(t *testing.T) {
		tr := newTranslator("s1", "lead", event.SinkFunc(func(event.Event) {}), nil)
		var told []string
		tr.cfg.OnCLISession = func(id string) { told = append(told, id) }
		for _, l := range []string{
			`{"type":"system","subtype":"init","session_id":"aaa","model":"m","tools":[]}`,
			`{"type":"system","subtype":"init","session_id":"aaa","model":"m","tools":[]}`,
			`{"type":"system","subtype":"init","session_id":"bbb","model":"m","tools":[]}`,
		} {
			if _, err := tr.feed([]byte(l)); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(told, []string{"aaa", "bbb"}) {
			t.Fatalf("told %q; want aaa then bbb", told)
		}
	})
}

func TestAResumedSessionStartsTheCLIWithResumeOfItsConversation(t *testing.T) {
	s := &Session{}
	if a := s.args("", "3cc16275"); !slices.Equal(a[len(a)-2:], []string{"--resume", "3cc16275"}) {
		t.Fatalf("args %q; want --resume 3cc16275 at the end", a)
	}
	if a := s.args("", ""); slices.Contains(a, "--resume") {
		t.Fatalf("args %q for a new conversation hold --resume", a)
	}
}

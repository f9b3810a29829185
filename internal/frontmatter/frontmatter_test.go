package frontmatter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadTextRefusesBytesThatAreNotUTF8NamingTheLine(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin.md")
	if err := os.WriteFile(bin, []byte("---\nname: x\n---\nok\n\xff\xfe\x00garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadText(bin)
	if err == nil || !strings.Contains(err.Error(), "line 5: not UTF-8 text (byte 0xff") {
		t.Fatalf("err = %v, want one naming line 5 and the byte", err)
	}
	good := filepath.Join(dir, "good.md")
	text := "---\nname: ünï\n---\nA U+FFFD written as text is fine: \ufffd\n"
	if err := os.WriteFile(good, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadText(good); err != nil || string(data) != text {
		t.Fatalf("ReadText = %q, %v", data, err)
	}
}

func TestReadTextRefusesAFolder(t *testing.T) {
	if _, err := ReadText(t.TempDir()); err == nil || err.Error() != "not a regular file" {
		t.Fatalf("err = %v", err)
	}
}

// Front matter that is not valid YAML (Claude Code's descriptions with
// "user: …" lines) is read line by line from the keys the caller knows.
func TestFrontMatterThatIsNotYAMLIsReadLineByLineFromKnownKeys(t *testing.T) {
	data := "\ufeff---\r\ndescription: Use it when: the user asks\r\nuser: \"hi\"\r\ntools: [read, grep]\r\n---\r\nBody.\r\n"
	fields, body, err := Text([]byte(data), func(k string) bool { return k == "description" || k == "tools" })
	if err != nil {
		t.Fatal(err)
	}
	if fields["description"] != "Use it when: the user asks\nuser: \"hi\"" || fields["tools"] != "[read, grep]" || body != "Body.\n" {
		t.Fatalf("fields %q body %q", fields, body)
	}
	head, _, _, _ := Split([]byte(data))
	f, err := Fields(head, func(k string) bool { return k == "description" || k == "tools" })
	if err != nil || strings.Join(f["tools"].Items(), ",") != "read,grep" || f["tools"].Line != 4 {
		t.Fatalf("tools field %+v, %v", f["tools"], err)
	}
}

func TestAnUnclosedOrMalformedFrontMatterNamesItsLine(t *testing.T) {
	if _, _, err := Text([]byte("---\nname: x\n"), nil); err == nil || !strings.HasPrefix(err.Error(), "line 1: front matter is not closed") {
		t.Errorf("unclosed: %v", err)
	}
	if _, _, err := Text([]byte("---\nname: [x\n  - y\n---\n"), func(string) bool { return false }); err == nil || !strings.Contains(err.Error(), "bad front matter") {
		t.Errorf("malformed: %v", err)
	}
}

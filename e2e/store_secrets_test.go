//go:build unix

package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"github.com/atomic-agent/atomic/internal/testkit"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/atomic-agent/atomic/internal/store"
)

// Keys of a run, none of which may reach the disk (all fake). The
// environment's and the config file's are no key shape: only knowing
// them masks them. The typed one is known to no one: only its shape
// masks it.
const (
	envKey   = "envkey-Q7hT2mZ9pLx4Wc"                         // ANTHROPIC_API_KEY
	authKey  = "authtok-R5nB8vK2jH6gFd"                        // ANTHROPIC_AUTH_TOKEN
	cfgKey   = "cfgkey-W3eR4tY5uI6oP7"                         // the config file's api_key
	typedKey = "sk-proj-Xy91Ab82Cd73Ef64Gh55Ij46Kl37Mn28"      // typed in a prompt
	toolKey  = "ghp_Pq19Rs28Tu37Vw46Xy55Za64Bc73De82Fg91"      // only in a file a tool prints
	badKey   = "sk-ant-api03-Err0r1nTheProviderMessage2345678" // in the provider's error message
)

// secretsScenario: the lead runs a command that echoes the typed key and
// prints a file of keys, then repeats them in its answer; resumed, the
// provider refuses with an error quoting a key.
var secretsScenario = `
rules:
  - {name: fail, match: {last_user_contains: "now fail"}, respond: {error: {status: 400, type: invalid_request_error, message: "invalid x-api-key ` + badKey + `"}}}
  - {name: answer, match: {has_tool_results: true, last_user_contains: "my key is"}, respond: {text: "I saw ` + typedKey + ` and ` + envKey + ` and ` + toolKey + `"}}
  - {name: echo, match: {last_user_contains: "my key is"}, respond: {tool_calls: [{name: bash, input: {command: "echo ` + typedKey + `; cat keys.txt", description: "show keys"}}]}}
`

// secretEnv sets cmd's provider credentials and its config file's api_key.
func secretEnv(t *testing.T, env *[]string) {
	t.Helper()
	var home string
	for _, kv := range *env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	cfg := `{"api_key":"` + cfgKey + `","retry":{"max_attempts":1,"base_delay_ms":20,"max_delay_ms":200}}`
	if err := os.WriteFile(filepath.Join(home, "atomic", "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out := (*env)[:0]
	for _, kv := range *env {
		if !strings.HasPrefix(kv, "ANTHROPIC_API_KEY=") {
			out = append(out, kv)
		}
	}
	*env = append(out, "ANTHROPIC_API_KEY="+envKey, "ANTHROPIC_AUTH_TOKEN="+authKey)
}

func TestNoKeyReachesTheStoreTheLifecycleLogOrTheExportWhereverItCameFrom(t *testing.T) {
	srv := server(t, secretsScenario)
	state, dir := t.TempDir(), workspace(t, map[string]string{
		"keys.txt": "ANTHROPIC_API_KEY=" + envKey + "\nANTHROPIC_AUTH_TOKEN=" + authKey + "\napi_key=" + cfgKey + "\nGITHUB_TOKEN=" + toolKey + "\n",
	})
	run := func(args ...string) result {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := withState(command(t, ctx, srv, "anthropic", dir, args...), state)
		secretEnv(t, &cmd.Env)
		return runCmd(t, cmd)
	}
	first := run("-p", typedKey+" is my key is what I said", "--allowed-tools", "bash", "--output-format", "stream-json")
	if first.code != 0 {
		t.Fatalf("first run: exit %d, stderr %q", first.code, first.stderr)
	}
	// The keys did flow through the run: its own output shows them.
	for _, k := range []string{typedKey, envKey, authKey, cfgKey, toolKey} {
		if !strings.Contains(first.stdout, k) {
			t.Fatalf("the run's stream-json never shows %q: the test would prove nothing", k)
		}
	}
	id := listSessions(t, state)[0].ID
	second := run("--resume", id, "-p", "now fail", "--output-format", "json")
	if second.code == 0 || !strings.Contains(second.stdout+second.stderr, "invalid x-api-key") {
		t.Fatalf("resumed run: exit %d, stdout %q, stderr %q; want the provider's error", second.code, second.stdout, second.stderr)
	}

	keys := []string{envKey, authKey, cfgKey, typedKey, toolKey, badKey}
	db := filepath.Join(state, "atomic", store.FileName)
	scanColumns(t, db, keys)
	// Every file Atomic keeps: the database and its WAL, the lifecycle
	// log, the lock files.
	var files int
	filepath.WalkDir(filepath.Join(state, "atomic"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, _ := os.ReadFile(p)
		for _, k := range keys {
			if bytes.Contains(b, []byte(k)) {
				t.Errorf("%s holds %q", p, k)
			}
		}
		return nil
	})
	logText, err := os.ReadFile(filepath.Join(state, "atomic", "atomic.log"))
	if err != nil || !strings.Contains(string(logText), `"error":`) || !strings.Contains(string(logText), "[redacted]") {
		t.Fatalf("lifecycle log (%v):\n%s\nwant the failed run's error line with its key masked", err, logText)
	}
	export := sessionsCmd(t, state, "export", id)
	list := sessionsCmd(t, state, "--json")
	if export.code != 0 || list.code != 0 {
		t.Fatalf("export: exit %d %s; list: exit %d %s", export.code, export.stderr, list.code, list.stderr)
	}
	for _, k := range keys {
		if strings.Contains(export.stdout, k) {
			t.Errorf("sessions export shows %q", k)
		}
		if strings.Contains(list.stdout, k) {
			t.Errorf("sessions --json shows %q", k)
		}
	}
	if !strings.Contains(export.stdout, "I saw [redacted] and [redacted] and [redacted]") ||
		listSessions(t, state)[0].Title != "[redacted] is my key is what I said" {
		t.Fatalf("export or title without the masks in place; title %q", listSessions(t, state)[0].Title)
	}
	t.Logf("scanned %d files and every column of the store", files)
}

// scanColumns fails t for each cell of each table of the database at path
// that holds one of keys.
func scanColumns(t *testing.T, path string, keys []string) {
	t.Helper()
	seen := testkit.EachCell(t, path, func(table, column string, v []byte) {
		for _, k := range keys {
			if bytes.Contains(v, []byte(k)) {
				t.Errorf("%s.%s holds %q", table, column, k)
			}
		}
	})
	for _, table := range []string{"sessions", "events", "prompts", "histories"} {
		if seen[table] == 0 {
			t.Errorf("table %s is empty: the run was not recorded (tables %v)", table, seen)
		}
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var hist []byte
	db.QueryRow(`SELECT messages FROM histories WHERE agent_id = 'lead'`).Scan(&hist)
	if !json.Valid(hist) || !bytes.Contains(hist, []byte("[redacted]")) {
		t.Errorf("the lead's history is not valid JSON with the keys masked: %.300s", hist)
	}
}

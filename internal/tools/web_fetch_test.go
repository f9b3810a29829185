package tools

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const page = `<!doctype html>
<html><head><title>The  Guide</title><style>body{color:red}</style><script>alert("x")</script></head>
<body>
<nav><a href="/home">Home</a> | <a href="/about">About</a></nav>
<h1>Getting started</h1>
<p>Read the <a href="/docs/install">install notes</a> first.</p>
<ul><li>fast</li><li>small</li></ul>
<pre><code>go install example.com/tool@latest</code></pre>
<script>track()</script>
</body></html>`

// fetchServer serves handlers by path on a loopback test server.
func fetchServer(t *testing.T, routes map[string]http.HandlerFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for p, h := range routes {
		mux.HandleFunc(p, h)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func serve(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.Write([]byte(body))
	}
}

var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

func TestWebFetchReturnsReadableContentByType(t *testing.T) {
	srv := fetchServer(t, map[string]http.HandlerFunc{
		"/page":  serve("text/html; charset=utf-8", page),
		"/notes": serve("text/plain; charset=utf-8", "line one\nline two\n"),
		"/data":  serve("application/json", `{"version": "1.2.3", "tags": ["a", "b"]}`),
		"/bare":  serve("", "<html><body><p>sniffed as html</p></body></html>"),
	})
	tool := NewWebFetch(WebFetchOptions{})
	tests := []struct {
		path    string
		want    []string
		notWant []string
	}{
		{"/page", []string{
			"URL: " + srv.URL + "/page", "Content-Type: text/html", "Title: The Guide",
			"# Getting started", "[install notes](" + srv.URL + "/docs/install)", "- fast\n- small", "```\ngo install example.com/tool@latest\n```",
		}, []string{"alert", "track()", "color:red", "About"}},
		{"/notes", []string{"Content-Type: text/plain", "\n\nline one\nline two"}, nil},
		{"/data", []string{"Content-Type: application/json", `{"version": "1.2.3", "tags": ["a", "b"]}`}, nil},
		{"/bare", []string{"Content-Type: text/html", "sniffed as html"}, []string{"<p>"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got := mustSucceed(t, tool, map[string]any{"url": srv.URL + tt.path})
			assertContains(t, got, tt.want...)
			for _, nw := range tt.notWant {
				if strings.Contains(got, nw) {
					t.Errorf("result contains %q, which should have been dropped:\n%s", nw, got)
				}
			}
		})
	}
}

func TestWebFetchEchoesThePromptAsTheReadersFocus(t *testing.T) {
	srv := fetchServer(t, map[string]http.HandlerFunc{"/": serve("text/plain", "body")})
	got := mustSucceed(t, NewWebFetch(WebFetchOptions{}), map[string]any{"url": srv.URL + "/", "prompt": "the latest version"})
	assertContains(t, got, "Looking for: the latest version")
}

func TestWebFetchReturnsAnImageAsAnAttachedImage(t *testing.T) {
	srv := fetchServer(t, map[string]http.HandlerFunc{"/dot.png": serve("image/png", string(pngBytes))})
	res := call(t, NewWebFetch(WebFetchOptions{}), map[string]any{"url": srv.URL + "/dot.png"})
	if res.IsError {
		t.Fatalf("error result: %s", res.Content)
	}
	assertContains(t, res.Content, "Content-Type: image/png", "it is attached")
	if len(res.Images) != 1 || res.Images[0].MediaType != "image/png" || !bytes.Equal(res.Images[0].Data, pngBytes) {
		t.Fatalf("Images = %+v, want the PNG's bytes", res.Images)
	}
}

func TestWebFetchErrorsNameTheURLAndWhatWasWrong(t *testing.T) {
	srv := fetchServer(t, map[string]http.HandlerFunc{
		"/gone": func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
		"/boom": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "oops", http.StatusInternalServerError) },
		"/pdf":  serve("application/pdf", "%PDF-1.7"),
		"/bmp":  serve("image/bmp", "BM"),
	})
	tool := NewWebFetch(WebFetchOptions{})
	tests := []struct {
		name, url string
		want      []string
	}{
		{"not found", srv.URL + "/gone", []string{srv.URL + "/gone", "404 Not Found"}},
		{"server error", srv.URL + "/boom", []string{srv.URL + "/boom", "500 Internal Server Error"}},
		{"unreadable type", srv.URL + "/pdf", []string{srv.URL + "/pdf", "application/pdf", "cannot read"}},
		{"image type providers refuse", srv.URL + "/bmp", []string{"image/bmp", "cannot read"}},
		{"another scheme", "ftp://example.com/file", []string{`"ftp"`, "only fetches http and https"}},
		{"no scheme", "example.com/docs", []string{"has no scheme", "https://example.com/docs"}},
		{"credentials", "https://user:secret@example.com/", []string{"user name or password"}},
		{"nothing listens", "http://127.0.0.1:1/", []string{"fetching http://127.0.0.1:1/", "refused"}},
		{"empty url", "", []string{"has no scheme"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertContains(t, mustFail(t, tool, map[string]any{"url": tt.url}), tt.want...)
		})
	}
}

func TestWebFetchCapsTheBodyAndTheTextWithANote(t *testing.T) {
	big := strings.Repeat("0123456789", 1000) // 10 000 bytes
	srv := fetchServer(t, map[string]http.HandlerFunc{
		"/big":   serve("text/plain", big),
		"/image": serve("image/png", string(pngBytes)+big),
	})
	capped := NewWebFetch(WebFetchOptions{MaxBody: 4000})
	got := mustSucceed(t, capped, map[string]any{"url": srv.URL + "/big"})
	assertContains(t, got, big[:4000], "[the body is larger than 3.9 KiB; only its first 3.9 KiB were read]")
	if strings.Contains(got, big[:4001]) {
		t.Fatal("more than MaxBody bytes were returned")
	}
	assertContains(t, mustFail(t, capped, map[string]any{"url": srv.URL + "/image"}), "image at "+srv.URL+"/image is larger than")

	got = mustSucceed(t, NewWebFetch(WebFetchOptions{}), map[string]any{"url": srv.URL + "/big", "max_length": 25})
	assertContains(t, got, "\n\n0123456789012345678901234\n\n[the content was cut at 25 of its 10000 characters]")
}

func TestWebFetchGivesUpOnASlowServerAfterItsTimeout(t *testing.T) {
	srv := fetchServer(t, map[string]http.HandlerFunc{
		"/slow": func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
		"/trickle": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("first part"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		},
	})
	tool := NewWebFetch(WebFetchOptions{Timeout: 200 * time.Millisecond})
	for _, tc := range []struct{ path, want string }{
		{"/slow", "no complete answer within 200ms"},
		{"/trickle", "the body did not arrive within 200ms"},
	} {
		start := time.Now()
		assertContains(t, mustFail(t, tool, map[string]any{"url": srv.URL + tc.path}), srv.URL+tc.path, tc.want)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%s: the fetch took %s despite a 200ms timeout", tc.path, d)
		}
	}
}

func TestWebFetchFollowsRedirectsOnTheSameHostAndReportsOthers(t *testing.T) {
	other := fetchServer(t, map[string]http.HandlerFunc{"/": serve("text/plain", "served by the second server")})
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1) + "/elsewhere"
	srv := fetchServer(t, map[string]http.HandlerFunc{
		"/old":   func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/new", http.StatusMovedPermanently) },
		"/new":   serve("text/plain", "the new page"),
		"/away":  func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, otherURL, http.StatusFound) },
		"/loop/": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, r.URL.Path+"x", http.StatusFound) },
	})
	tool := NewWebFetch(WebFetchOptions{})
	got := mustSucceed(t, tool, map[string]any{"url": srv.URL + "/old"})
	assertContains(t, got, "URL: "+srv.URL+"/new (redirected from "+srv.URL+"/old)", "the new page")

	got = mustSucceed(t, tool, map[string]any{"url": srv.URL + "/away"})
	assertContains(t, got, srv.URL+"/away redirects (302 Found) to another host: "+otherURL, "call web_fetch again with that URL")
	if strings.Contains(got, "served by the second server") {
		t.Fatal("the cross-host redirect was followed")
	}
	assertContains(t, mustFail(t, tool, map[string]any{"url": srv.URL + "/loop/"}), "more than 10 redirects")
}

func TestWebFetchSubjectIsTheURLFetchedWithHTTPUpgradedExceptOnLoopback(t *testing.T) {
	tool := NewWebFetch(WebFetchOptions{}).(Subjecter)
	for in, want := range map[string]string{
		"http://go.dev/doc":         "https://go.dev/doc",
		"https://go.dev/doc":        "https://go.dev/doc",
		"HTTP://go.dev/":            "https://go.dev/",
		"http://localhost:8080/x":   "http://localhost:8080/x",
		"http://127.0.0.1:9/x":      "http://127.0.0.1:9/x",
		"http://[::1]:9/x":          "http://[::1]:9/x",
		"ftp://example.com/x":       "ftp://example.com/x",
		"http://www.example.com/?q": "https://www.example.com/?q",
	} {
		if got := tool.Subject(input(t, map[string]any{"url": in})); got != want {
			t.Errorf("Subject(%q) = %q, want %q", in, got, want)
		}
	}
	if k := NewWebFetch(WebFetchOptions{}).Kind(); k != Exec {
		t.Fatalf("Kind = %v, want Exec (asked for like a command)", k)
	}
}

package permission

import (
	"fmt"
	"net/url"
	"strings"
)

// web_fetch rules name domains, as Claude Code's WebFetch(domain:…) does:
// web_fetch(domain:go.dev) covers every URL on go.dev, and
// web_fetch(domain:*.go.dev) go.dev and its subdomains. The subject of a
// web_fetch call is its URL; the rule matches the URL's host, never a
// string inside it, so https://evil.example/?u=https://go.dev/ is not go.dev.

const webFetchTool = "web_fetch"

// matchDomain reports whether the domain rule p covers the URL subject;
// handled is false when p is no domain rule (then the usual matching
// applies).
func matchDomain(p Pattern, subject string) (match, handled bool) {
	domain, ok := strings.CutPrefix(p.Prefix, "domain:")
	if !p.HasArg || !ok {
		return false, false
	}
	host := urlHost(subject)
	if host == "" {
		return false, true
	}
	domain = strings.ToLower(domain)
	if p.Wildcard && domain == "" {
		return true, true
	}
	if sub, ok := strings.CutPrefix(domain, "*."); ok {
		return host == sub || strings.HasSuffix(host, "."+sub), true
	}
	return host == domain, true
}

// urlHost is the lower-cased host of the URL s, without its port.
func urlHost(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// webFetchRule is the rule that allows fetching from the host of url:
// what "allow for this session" remembers and the headless denial names.
func webFetchRule(url string) Pattern {
	if host := urlHost(url); host != "" {
		return Pattern{Tool: webFetchTool, HasArg: true, Prefix: "domain:" + host}
	}
	return Pattern{Tool: webFetchTool}
}

// webFetchDenial is the headless denial of a fetch: it names the rule for
// this domain and the one for every fetch.
func (g *Gate) webFetchDenial(req Request) string {
	return fmt.Sprintf("permission denied: %s needs approval and no one can answer a prompt in headless mode; allow it with --allowed-tools '%s' (this domain) or --allowed-tools '%s' (any URL), or --permission-mode bypassPermissions",
		g.describe(req), webFetchRule(req.Subject), webFetchTool)
}

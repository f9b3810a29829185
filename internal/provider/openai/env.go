package openai

import "strings"

// helperEnvNames are the variables atomic-openai reads: the proxy and
// certificate settings of Go's HTTP client, the SDK's organisation,
// project and extra headers, and the Go runtime's own knobs.
var helperEnvNames = []string{
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	"OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_CUSTOM_HEADERS",
	"GODEBUG", "GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GOTRACEBACK", "TMPDIR",
}

// HelperEnv is the environment atomic-openai gets of environ: only what
// it reads (proxy names in either case), so no other secret of the user's
// (a GITHUB_TOKEN, cloud credentials, another provider's key) reaches it.
// Its key goes to it on its input.
func HelperEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		for _, n := range helperEnvNames {
			if name == n || strings.HasSuffix(n, "_PROXY") && name == strings.ToLower(n) {
				out = append(out, kv)
				break
			}
		}
	}
	return out
}

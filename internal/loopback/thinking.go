package loopback

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

// Thinking, as the real APIs hand it out and take it back. Anthropic
// thinking blocks carry a signature, and Responses reasoning items an
// encrypted_content, that only this server can make: an HMAC under a key
// drawn when the server is made. A client must send them back unchanged;
// any change is refused with the real APIs' errors.

// defaultThinking is the thinking text of a response that scripts none.
const defaultThinking = "Let me think this through step by step before answering."

// minThinkingBudget is Anthropic's smallest budget_tokens.
const minThinkingBudget = 1024

// signer makes and checks thinking signatures.
type signer struct{ key []byte }

func newSigner() signer {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read never fails
	return signer{key: key}
}

func (g signer) mac(kind, text string) []byte {
	m := hmac.New(sha256.New, g.key)
	fmt.Fprintf(m, "%s\x00%s", kind, text)
	return m.Sum(nil)
}

// sign is the signature of a thinking block's text.
func (g signer) sign(thinking string) string {
	return base64.StdEncoding.EncodeToString(g.mac("thinking", thinking))
}

func (g signer) verify(thinking, signature string) bool {
	sig, err := base64.StdEncoding.DecodeString(signature)
	return err == nil && hmac.Equal(sig, g.mac("thinking", thinking))
}

// seal is a reasoning item's encrypted_content: its text and a MAC (not
// encrypted: tests may read it, clients must not change it).
func (g signer) seal(text string) string {
	enc := base64.RawURLEncoding
	return "lb1." + enc.EncodeToString([]byte(text)) + "." + enc.EncodeToString(g.mac("reasoning", text))
}

func (g signer) open(sealed string) bool {
	enc := base64.RawURLEncoding
	parts := strings.Split(sealed, ".")
	if len(parts) != 3 || parts[0] != "lb1" {
		return false
	}
	text, err1 := enc.DecodeString(parts[1])
	mac, err2 := enc.DecodeString(parts[2])
	return err1 == nil && err2 == nil && hmac.Equal(mac, g.mac("reasoning", string(text)))
}

// thinkingBlock is a thinking or redacted_thinking block a client sent
// back in an assistant message, or a Responses reasoning item.
type thinkingBlock struct {
	msg, block int    // Anthropic: message and block index; Responses: input index
	id         string // Responses: the item's id
	thinking   string
	signature  string // Anthropic signature or Responses encrypted_content
	redacted   bool
}

// checkThinking verifies the thinking the client sent back.
func (s *Server) checkThinking(req *request) *apiError {
	for _, t := range req.thinkingBack {
		switch {
		case req.api == APIResponses:
			if t.signature != "" && !s.signer.open(t.signature) {
				name := "for item " + t.id
				if t.id == "" {
					name = abbreviate(t.signature)
				}
				return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", code: "invalid_encrypted_content",
					message: fmt.Sprintf("The encrypted content %s could not be verified. Reason: Encrypted content could not be decrypted or parsed.", name)}
			}
		case t.redacted:
			if !s.signer.open(t.signature) {
				return badRequest("messages.%d.content.%d: Invalid `data` in `redacted_thinking` block", t.msg, t.block)
			}
		case !s.signer.verify(t.thinking, t.signature):
			return badRequest("messages.%d.content.%d: Invalid `signature` in `thinking` block", t.msg, t.block)
		}
	}
	return nil
}

// abbreviate shortens an opaque value the way OpenAI's errors quote it.
func abbreviate(s string) string {
	if len(s) <= 10 {
		return s
	}
	return s[:4] + "..." + s[len(s)-4:]
}

// thinkingFor is the thinking text of resp when req asks for thinking, ""
// when it does not.
func thinkingFor(resp *Response, req *request) string {
	if !req.thinks() {
		return ""
	}
	if resp.Thinking != "" {
		return resp.Thinking
	}
	return defaultThinking
}

// thinks reports whether req asks the model to think: Anthropic thinking
// enabled, an OpenAI reasoning effort other than none.
func (r *request) thinks() bool {
	if r.api == APIAnthropic {
		return r.thinkingBudget > 0 || r.thinkingAdaptive
	}
	return r.effort != "" && r.effort != "none"
}

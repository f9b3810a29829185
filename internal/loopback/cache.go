package loopback

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
)

// Prompt caching, as the real APIs account for it. A prompt is a sequence
// of blocks in the order the APIs cache them: Anthropic's tools, system
// blocks, then each message's content blocks; OpenAI's tools, then
// messages (Chat Completions) or instructions, tools, then input items
// (Responses). Each block is its canonical JSON: decoded and encoded again
// (object keys sorted), with Anthropic's cache_control markers removed, so
// moving a breakpoint does not change the prefix before it. A prefix's
// tokens are EstimateTokens of its blocks' canonical bytes; its hash is
// SHA-256 over the API, the model, and each block with its position.

// cacheBlock is one block of a prompt.
type cacheBlock struct {
	place string // "tools[0]", "system[1]", "messages[2].content[0]", "input[3]"
	// raw is the block as sent; canon its canonical JSON, made from raw
	// by the server (Server.canonOf) when the request is accounted for.
	raw        json.RawMessage
	canon      []byte
	breakpoint bool // carries cache_control (Anthropic)
}

// prefix is a prompt cut after a block: its size and identity.
type prefix struct {
	tokens int
	hash   string
}

// prefixes are the prompt's prefixes, one per block boundary: prefixes[i]
// ends after blocks[i].
func prefixes(api, model string, blocks []cacheBlock) []prefix {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", api, model)
	out := make([]prefix, len(blocks))
	size := 0
	for i, b := range blocks {
		fmt.Fprintf(h, "%s\x00%d\x00", b.place, len(b.canon))
		h.Write(b.canon)
		size += len(b.canon)
		out[i] = prefix{tokens: size / 4, hash: shortHash(h)}
	}
	return out
}

func shortHash(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)[:12]) }

// maxCanonMemo bounds the bytes Server.canonOf remembers; past it, it
// starts afresh.
const maxCanonMemo = 64 << 20

// canonOf is canonical(raw), remembered by raw: every request of every
// agent repeats the same tool definitions and system prompt, and
// canonicalising them again for each was most of the loopback's CPU in a
// 100-agent run, on the cores the Atomic it measures runs on.
func (s *Server) canonOf(raw json.RawMessage) []byte {
	s.canonMu.Lock()
	c, ok := s.canonMemo[string(raw)]
	s.canonMu.Unlock()
	if ok {
		return c
	}
	c = canonical(raw)
	s.canonMu.Lock()
	if s.canonMemo == nil || s.canonBytes+len(raw)+len(c) > maxCanonMemo {
		s.canonMemo, s.canonBytes = map[string][]byte{}, 0
	}
	s.canonMemo[string(raw)] = c
	s.canonBytes += len(raw) + len(c)
	s.canonMu.Unlock()
	return c
}

// canonical is raw re-encoded with sorted keys and without a top-level
// cache_control, or raw itself when it is not valid JSON.
func canonical(raw json.RawMessage) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return raw
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "cache_control")
		if list, ok := m["content"].([]any); ok && m["type"] == "tool_result" {
			for _, e := range list {
				if em, ok := e.(map[string]any); ok {
					delete(em, "cache_control")
				}
			}
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// hasCacheControl reports whether a block carries a cache_control marker.
func hasCacheControl(raw json.RawMessage) bool {
	var b struct {
		CacheControl json.RawMessage `json:"cache_control"`
		Type         string          `json:"type"`
		Content      json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &b) != nil {
		return false
	}
	if len(b.CacheControl) > 0 && string(b.CacheControl) != "null" {
		return true
	}
	if b.Type != "tool_result" {
		return false
	}
	var inner []struct {
		CacheControl json.RawMessage `json:"cache_control"`
	}
	if json.Unmarshal(b.Content, &inner) != nil {
		return false
	}
	for _, e := range inner {
		if len(e.CacheControl) > 0 && string(e.CacheControl) != "null" {
			return true
		}
	}
	return false
}

// maxBreakpoints is how many cache_control blocks Anthropic accepts.
const maxBreakpoints = 4

// anthropicCacheBlocks reads an Anthropic prompt's blocks, refusing more
// than four breakpoints as the real API does.
func anthropicCacheBlocks(tools []json.RawMessage, system json.RawMessage, contents []json.RawMessage) ([]cacheBlock, *apiError) {
	var blocks []cacheBlock
	add := func(place string, raw json.RawMessage) {
		blocks = append(blocks, cacheBlock{place: place, raw: raw, breakpoint: hasCacheControl(raw)})
	}
	for i, t := range tools {
		add(fmt.Sprintf("tools[%d]", i), t)
	}
	for i, b := range blockList(system) {
		add(fmt.Sprintf("system[%d]", i), b)
	}
	for i, c := range contents {
		for j, b := range blockList(c) {
			add(fmt.Sprintf("messages[%d].content[%d]", i, j), b)
		}
	}
	n := 0
	for _, b := range blocks {
		if b.breakpoint {
			n++
		}
	}
	if n > maxBreakpoints {
		return nil, badRequest("A maximum of %d blocks with cache_control may be provided. Found %d.", maxBreakpoints, n)
	}
	return blocks, nil
}

// blockList is content as a list of raw blocks: a string is one text block.
func blockList(raw json.RawMessage) []json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		return []json.RawMessage{mustJSON(map[string]any{"type": "text", "text": s})}
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	return list
}

// openAICacheBlocks is a prompt of whole items (tools, messages, input
// items): OpenAI caches any prefix, without breakpoints.
func openAICacheBlocks(kind string, items []json.RawMessage, start int, blocks []cacheBlock) []cacheBlock {
	for i, it := range items {
		blocks = append(blocks, cacheBlock{place: fmt.Sprintf("%s[%d]", kind, start+i), raw: it})
	}
	return blocks
}

// lookback is how many blocks before a breakpoint Anthropic checks for an
// earlier cached prefix (its "about 20 blocks").
const lookback = 20

// openAICacheStep is the granularity of OpenAI's cache hits.
const openAICacheStep = 128

// cacheResult is the caching of one request.
type cacheResult struct {
	read, write int    // tokens
	readHash    string // the prefix read, "" when none
	breakpoints []LogBreakpoint
}

func (s *Server) cacheMin() int {
	if s.sc.CacheMinTokens > 0 {
		return s.sc.CacheMinTokens
	}
	return 1024
}

// cacheUsage accounts for req's prompt caching against the prefixes
// earlier requests wrote, and records the prefixes req writes. total is
// req's estimated input; read and write never exceed it.
//
// Anthropic: the prefix read is the longest one stored at a block
// boundary no more than 20 blocks before a breakpoint; the prefix up to
// each breakpoint at least CacheMinTokens long is written, and the tokens
// written are those from the end of the read to the last such breakpoint.
// OpenAI: the prefix read is the longest stored one at any boundary, in
// 128-token steps; every boundary at least CacheMinTokens long is written.
func (s *Server) cacheUsage(req *request, total int) cacheResult {
	var res cacheResult
	if len(req.cacheBlocks) == 0 {
		return res
	}
	for i := range req.cacheBlocks {
		if b := &req.cacheBlocks[i]; b.canon == nil {
			b.canon = s.canonOf(b.raw)
		}
	}
	pre := prefixes(req.api, req.model, req.cacheBlocks)
	least := s.cacheMin()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cached == nil {
		s.cached = map[string]bool{}
	}
	readAt := -1
	if req.api != APIAnthropic {
		for i, p := range pre {
			if p.tokens >= least && s.cached[p.hash] {
				readAt = i
			}
		}
		for _, p := range pre {
			if p.tokens >= least {
				s.cached[p.hash] = true
			}
		}
		if readAt >= 0 {
			res.read = min(pre[readAt].tokens/openAICacheStep*openAICacheStep, total)
			res.readHash = pre[readAt].hash
		}
		return res
	}
	writeEnd := -1
	for i, b := range req.cacheBlocks {
		if !b.breakpoint {
			continue
		}
		res.breakpoints = append(res.breakpoints, LogBreakpoint{Place: b.place, Tokens: pre[i].tokens, Hash: pre[i].hash})
		for k := i; k >= 0 && k > i-lookback; k-- {
			if k > readAt && pre[k].tokens >= least && s.cached[pre[k].hash] {
				readAt = k
				break
			}
		}
		if pre[i].tokens >= least {
			writeEnd = i
		}
	}
	if readAt >= 0 {
		res.read = min(pre[readAt].tokens, total)
		res.readHash = pre[readAt].hash
	}
	if writeEnd > readAt {
		res.write = min(pre[writeEnd].tokens-res.read, total-res.read)
	}
	for _, bp := range res.breakpoints {
		if bp.Tokens >= least {
			s.cached[bp.Hash] = true
		}
	}
	return res
}

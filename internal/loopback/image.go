package loopback

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Images in requests: Anthropic image blocks (in tool results and user
// messages) and Chat Completions image_url parts (in user messages only),
// checked as the real APIs check them, so a client that sends a picture
// wrongly fails here as it would there.

// imageTypeOK reports whether both APIs accept the media type mt.
func imageTypeOK(mt string) bool {
	switch mt {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return true
	}
	return false
}

// lastTurnImages are the images of the last turn: those in its tool
// results and in the user messages after the last assistant message.
func (r *request) lastTurnImages() []LogImage {
	var out []LogImage
	for _, m := range slices.Backward(r.messages) {
		if m.Role == "assistant" {
			break
		}
		out = append(out, m.Images...)
		for _, res := range m.ToolResults {
			out = append(out, res.Images...)
		}
	}
	return out
}

// anthropicImage reads the source of an Anthropic image block.
func anthropicImage(source json.RawMessage) (LogImage, error) {
	var src struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	}
	if err := json.Unmarshal(source, &src); err != nil {
		return LogImage{}, fmt.Errorf("image.source: Field required")
	}
	switch src.Type {
	case "base64":
		if !imageTypeOK(src.MediaType) {
			return LogImage{}, fmt.Errorf("image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp', not %q", src.MediaType)
		}
		data, err := base64.StdEncoding.DecodeString(src.Data)
		if err != nil {
			return LogImage{}, fmt.Errorf("image.source.base64.data: the image data is not valid base64: %v", err)
		}
		return LogImage{MediaType: src.MediaType, Data: data}, nil
	case "url":
		return LogImage{URL: src.URL}, nil
	}
	return LogImage{}, fmt.Errorf("image.source.type: Input tag %q found using 'type' does not match any of the expected tags: 'base64', 'url'", src.Type)
}

// anthropicImages are the image blocks of tool_result content (a string
// or a list of blocks).
func anthropicImages(raw json.RawMessage) ([]LogImage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, nil
	}
	blocks, err := anthropicBlocks(raw)
	if err != nil {
		return nil, err
	}
	var out []LogImage
	for i, b := range blocks {
		if b.Type != "image" {
			continue
		}
		img, err := anthropicImage(b.Source)
		if err != nil {
			return nil, fmt.Errorf("%d.%w", i, err)
		}
		out = append(out, img)
	}
	return out, nil
}

// openAIImages are the image_url parts of Chat Completions content.
func openAIImages(raw json.RawMessage) ([]LogImage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, fmt.Errorf("content must be a string or an array of content parts: %v", err)
	}
	var out []LogImage
	for i, p := range parts {
		if p.Type != "image_url" {
			continue
		}
		img, err := dataURLImage(p.ImageURL.URL)
		if err != nil {
			return nil, fmt.Errorf("content[%d].image_url.url: %w", i, err)
		}
		out = append(out, img)
	}
	return out, nil
}

// dataURLImage reads an image_url: a data:MEDIA;base64,DATA URL is
// decoded, an http(s) URL kept as it is.
func dataURLImage(u string) (LogImage, error) {
	if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
		return LogImage{URL: u}, nil
	}
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return LogImage{}, fmt.Errorf("Invalid image URL: expected an http(s) URL or a base64-encoded data URL")
	}
	meta, data, ok := strings.Cut(rest, ",")
	mt, isBase64 := strings.CutSuffix(meta, ";base64")
	if !ok || !isBase64 {
		return LogImage{}, fmt.Errorf("Invalid image URL: a data URL must be base64-encoded (data:image/png;base64,...)")
	}
	if !imageTypeOK(mt) {
		return LogImage{}, fmt.Errorf("Invalid image type %q: expected image/jpeg, image/png, image/gif or image/webp", mt)
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return LogImage{}, fmt.Errorf("Invalid image data: not valid base64: %v", err)
	}
	return LogImage{MediaType: mt, Data: b}, nil
}

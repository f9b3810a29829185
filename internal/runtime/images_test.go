package runtime

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
)

func TestSubmitImagesPutsTheImageInTheLeadsFirstRequestAndHistory(t *testing.T) {
	j := &journal{}
	h, srv := startWith(t, `rules: [{respond: {text: "a red dot"}}]`, Config{Journal: j})
	if !h.rt.TakesImages() {
		t.Fatal("TakesImages() = false for a native lead on the anthropic provider")
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	h.rt.SubmitImages("what is this?", []provider.Image{{MediaType: "image/png", Data: png}})
	if out := h.await(t); out.Err != nil || out.Result != "a red dot" {
		t.Fatalf("outcome %+v", out)
	}
	h.stop()
	log := srv.Log()
	if len(log) == 0 {
		t.Fatal("the lead sent no request")
	}
	first := log[0].Messages[0]
	if first.Role != "user" || first.Text != "what is this?" {
		t.Errorf("first message = %q %q; want the user's text", first.Role, first.Text)
	}
	if diff := cmp.Diff([]loopback.LogImage{{MediaType: "image/png", Data: png}}, first.Images); diff != "" {
		t.Errorf("images in the lead's first request (-want +got):\n%s", diff)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.log[0] != "prompt:what is this? [1 image]" {
		t.Errorf("journal's prompt %q; want the text with a note of the image", j.log[0])
	}
	want := provider.Message{Role: provider.RoleUser, Parts: []provider.Part{
		{Text: "what is this?"}, {Image: &provider.Image{MediaType: "image/png", Data: png}}}}
	if lead := j.history["lead"]; len(lead) == 0 || !cmp.Equal(want, lead[0]) {
		t.Errorf("lead's saved history %+v; want it to start with %+v", lead, want)
	}
}

func TestSubmitImagesFailsTheTurnWhenTheProviderTakesNoImages(t *testing.T) {
	h := start(t, `rules: [{respond: {text: "unused"}}]`, Config{})
	h.rt.cfg.Provider = textOnly{h.rt.cfg.Provider}
	if h.rt.TakesImages() {
		t.Fatal("TakesImages() = true for a provider that takes no images")
	}
	h.rt.SubmitImages("look", []provider.Image{{MediaType: "image/png", Data: []byte("x")}})
	out := h.await(t)
	if out.Err == nil || !cmp.Equal(out.Err.Error(), "the prompt has 1 image(s), but the lead (provider demo) takes text only") {
		t.Fatalf("outcome error %v; want one naming the images and the lead", out.Err)
	}
}

// textOnly is a provider named like the demo model, which reads text only.
type textOnly struct{ provider.Provider }

func (textOnly) Name() string { return "demo" }

func TestSplitImageNoteUndoesTheJournalsNote(t *testing.T) {
	tests := []struct {
		saved string
		text  string
		n     int
	}{
		{"look at this [1 image]", "look at this", 1},
		{"compare [3 images]", "compare", 3},
		{"[2 images]", "", 2},
		{"plain text", "plain text", 0},
		{"a list [1, 2]", "a list [1, 2]", 0},
		{"wrong plural [2 image]", "wrong plural [2 image]", 0},
		{"glued[1 image]", "glued[1 image]", 0},
		{"zero [0 images]", "zero [0 images]", 0},
	}
	for _, tt := range tests {
		t.Run(tt.saved, func(t *testing.T) {
			text, n := SplitImageNote(tt.saved)
			if text != tt.text || n != tt.n {
				t.Errorf("SplitImageNote(%q) = %q, %d; want %q, %d", tt.saved, text, n, tt.text, tt.n)
			}
		})
	}
	for _, n := range []int{1, 2} {
		if text, got := SplitImageNote(withImageNote("see", n)); text != "see" || got != n {
			t.Errorf("SplitImageNote(withImageNote(see, %d)) = %q, %d", n, text, got)
		}
	}
}

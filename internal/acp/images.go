package acp

import (
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/runtime"
)

// RestoreImages gives stored prompts back the images their notes count
// ("[1 image]"), taken from the lead's saved history, whose user messages
// keep them. Prompts are matched from the last backwards, since a /clear
// drops the history's earlier ones; a prompt whose images are gone, or
// whose count does not match, keeps its note.
func RestoreImages(prompts []Prompt, history []provider.Message) []Prompt {
	var saved [][]provider.Image
	for _, m := range history {
		if m.Role != provider.RoleUser {
			continue
		}
		var imgs []provider.Image
		for _, p := range m.Parts {
			if p.Image != nil {
				imgs = append(imgs, *p.Image)
			}
		}
		if len(imgs) > 0 {
			saved = append(saved, imgs)
		}
	}
	out := append([]Prompt(nil), prompts...)
	for i := len(out) - 1; i >= 0 && len(saved) > 0; i-- {
		text, n := runtime.SplitImageNote(out[i].Text)
		if n == 0 {
			continue
		}
		last := saved[len(saved)-1]
		if len(last) != n {
			break
		}
		saved = saved[:len(saved)-1]
		out[i].Text, out[i].Images = text, last
	}
	return out
}

package native

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestTheWireLengthOfAStringIsNeverBelowWhatJSONEncodingMakesOfIt(t *testing.T) {
	for c := range 0x80 {
		s := strings.Repeat(string(rune(c)), 3) + "ok"
		enc, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := wireLen(s), len(enc)-2; got < want {
			t.Errorf("byte %#x: wireLen %d < %d encoded", c, got, want)
		}
	}
	if got := wireLen(`a"b\c` + "\n<&>"); got != 5+2+2+3*6 {
		t.Errorf("wireLen = %d, want 27", got)
	}
}

func TestTheEstimatesCompactionCarriesAlongMatchTheMessagesItKeeps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 500 {
		h := randomHistory(r)
		toks := tokensEach(h)
		budget := int64(r.IntN(4000))
		out, ot := fitResults(h, toks, 64+r.IntN(8000), budget)
		if want := tokensEach(out); !slices.Equal(ot, want) {
			t.Fatalf("case %d: fitResults returned estimates %v, its messages estimate %v", n, ot, want)
		}
		if !slices.Equal(toks, tokensEach(h)) {
			t.Fatalf("case %d: fitResults changed the estimates it was given", n)
		}
		// Dropping ends, and only when what is left fits or has no clean
		// cut past the note that opens it.
		dropped := dropOldest(out, ot, budget)
		from := 1
		if len(dropped) < len(out) || dropped[0].Parts[0].Text != out[0].Parts[0].Text {
			from = 2
		}
		if messagesTokens(dropped) > budget {
			for i := from; i < len(dropped); i++ {
				if cleanCut(dropped, i) {
					t.Fatalf("case %d: dropOldest stopped at %d tokens > %d with a clean cut at %d", n, messagesTokens(dropped), budget, i)
				}
			}
		}
	}
}

// Command floor is the floor of S1's memory: a Go program that does only
// what a one-answer run must, one streaming request through the official
// Anthropic SDK and net/http, printing the answer. BenchmarkOneAnswerFloor
// measures it the way BenchmarkOneAnswer measures atomic, so what Atomic
// adds over any Go agent on the same SDK is the difference.
//
//	floor BASE_URL PROMPT
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: floor BASE_URL PROMPT")
		os.Exit(2)
	}
	c := anthropic.NewClient(option.WithBaseURL(os.Args[1]))
	s := c.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{
		Model: "test-model", MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(os.Args[2]))},
	})
	for s.Next() {
		if d, ok := s.Current().AsAny().(anthropic.ContentBlockDeltaEvent); ok {
			fmt.Print(d.Delta.Text)
		}
	}
	if err := s.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	fmt.Println()
}

// Command atomic-openai is Atomic's OpenAI provider: the official OpenAI
// Go SDK speaking the Chat Completions API, served to atomic over this
// program's standard input and output (package hosted). atomic runs it on
// its first OpenAI request; it is a program of its own so that the SDK's
// memory and binary size are paid only by the runs that use it.
package main

import (
	"os"

	"github.com/atomic-agent/atomic/internal/provider/hosted"
	"github.com/atomic-agent/atomic/internal/provider/openai/chat"
)

func main() { os.Exit(hosted.Main(chat.Open)) }

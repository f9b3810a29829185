package ui

import "fmt"

// reviewDiffBytes bounds the diff a /review prompt carries; reviewers
// read the rest with their tools.
const reviewDiffBytes = 60_000

// initPrompt asks the lead for an AGENTS.md, fanning the look at the
// repository out to explore agents; the file is written through the
// normal tools and the permission gate.
const initPrompt = `Write an AGENTS.md at the repository root for coding agents that will work here.

First look at the repository with sub-agents: start explore agents in parallel with the task tool (one on the layout and the main packages or modules, one on how to build, run, test and lint — read the build files, CI config, Makefile or scripts — and one on the conventions: code style, naming, error handling, commit messages, what the README and any CONTRIBUTING say). Wait for their reports.

Then write AGENTS.md with the write tool (if one exists, read it and improve it with edit instead): a short overview, the exact build/test/lint commands, the layout (where things live), the conventions, and anything surprising a newcomer must know. Keep it under about 150 lines, concrete and specific to this repository; no generic advice.`

// reviewPrompt asks the lead to review diff with reviewer sub-agents.
func reviewPrompt(diff string) string {
	cut := ""
	if len(diff) > reviewDiffBytes {
		diff, cut = diff[:reviewDiffBytes], "\n(the diff is cut here: run git diff HEAD for the rest)"
	}
	return fmt.Sprintf(`Review the changes in the working tree (git diff HEAD below).

Fan the review out with the task tool: start sub-agents in parallel, one per concern — correctness and bugs (edge cases, error handling, concurrency), tests (what the change leaves untested, tests that cannot fail), and design and readability (naming, structure, duplication; security where input or commands are involved). Each reads the changed files in full, not only the hunks. Do not change any file.

Then merge their findings into one review: the most serious first, each with its file:line, what is wrong and a concrete fix; say plainly if the change looks good.

`+"```diff\n%s\n```%s", diff, cut)
}

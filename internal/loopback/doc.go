// Package loopback is a scripted model server for tests. It speaks the real
// Anthropic Messages API (POST /v1/messages) and OpenAI Chat Completions API
// (POST /v1/chat/completions) wire formats, streaming and not, so the official
// SDK clients talk to it as to the real services, and it answers each request
// from a Scenario of rules. Every request is recorded in a log (GET /_log,
// Server.Log) with its timing and the conversation the client sent, so tests
// can prove what a client did: that requests overlapped, that tool results
// went back, that a retry happened.
//
// It runs in-process (New, Start, Close) or as a separate program (Run), and
// only ever listens on loopback addresses.
package loopback

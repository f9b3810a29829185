// Package e2e drives the real atomic binary in a tmux terminal against the
// loopback model server: what a user sees, typed key by key.
package e2e

package cli

import (
	"strings"
	"testing"
)

func TestReadDenySecretsLeaveOutPathsOverlappingTheWritableFolders(t *testing.T) {
	got := readDenySecrets([]string{"/home/u/private", "/", "/work/repo/secrets", "/work", "/home/u/.aws/"}, []string{"/work/repo", "/data/extra"})
	if strings.Join(got, ",") != "/home/u/private,/home/u/.aws" {
		t.Fatalf("secrets %v, want the two folders outside and above no writable folder", got)
	}
}

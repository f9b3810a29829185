// Package procgroup starts child processes in a process group of their
// own and signals the whole group, so that ending a tool, a backend CLI
// or an MCP server also ends everything it started (shells, npx, node
// wrappers). Unix has real group signals; Windows does not, and there
// only the group's first process is reached (see procgroup_windows.go).
package procgroup

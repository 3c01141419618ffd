//go:build !unix && !windows

package main

// processAlive reports whether a process with id pid exists. Without a
// way to ask, every process is taken to be alive: nothing is removed.
func processAlive(pid int) bool { return true }

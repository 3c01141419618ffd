// Package examples holds runnable examples of the fetch library: the
// Example functions in its tests, and programs in its subfolders
// (quickstart: serve and fetch locally, offline).
package examples

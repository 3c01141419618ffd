module github.com/rfc1738/fetch/cmd/fetch

go 1.26.0

require (
	github.com/andybalholm/brotli v1.3.0
	github.com/rfc1738/fetch v0.0.0-00010101000000-000000000000
	github.com/vbauerster/mpb/v8 v8.16.2
	goftp.io/server/v2 v2.0.3
	golang.org/x/net v0.60.0
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
	golang.org/x/time v0.16.0
)

require (
	github.com/VividCortex/ewma v1.2.0 // indirect
	github.com/acarl005/stripansi v0.0.0-20180116102854-5a71ef0e047d // indirect
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/mattn/go-runewidth v0.0.30 // indirect
	github.com/temoto/robotstxt v1.1.2 // indirect
	github.com/vbauerster/cupwriter v0.0.5 // indirect
	github.com/ziutek/telnet v0.0.0-20180329124119-c3b780dc415b // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)

// The command is a module of its own, so that a program importing only the
// library does not take the progress bar's modules into its graph. Outside
// the workspace (go.work at the root) the replacement keeps a build of this
// directory on the library beside it.
replace github.com/rfc1738/fetch => ../../

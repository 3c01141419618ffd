module github.com/rfc1738/fetch

go 1.26.0

require (
	github.com/emersion/go-sasl v0.0.0-20241020182733-b788ff22d5a6
	github.com/emersion/go-smtp v0.25.1
	github.com/ziutek/telnet v0.0.0-20180329124119-c3b780dc415b
	goftp.io/server/v2 v2.0.3
	golang.org/x/term v0.47.0
)

require (
	github.com/andybalholm/brotli v1.3.0
	github.com/klauspost/compress v1.20.3
	github.com/temoto/robotstxt v1.1.2
	golang.org/x/net v0.60.0
	golang.org/x/sync v0.24.0
	golang.org/x/sys v0.49.0
	golang.org/x/time v0.16.0
)

require golang.org/x/text v0.43.0 // indirect

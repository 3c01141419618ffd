module github.com/rfc1738/fetch

go 1.26

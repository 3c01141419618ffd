package crawl_test

import (
	"testing"

	"github.com/rfc1738/fetch/fetch/crawl"
	"github.com/rfc1738/fetch/fetch/crawl/frontiertest"
)

func TestMemoryFrontier(t *testing.T) {
	frontiertest.Test(t, func(t *testing.T) crawl.Frontier { return crawl.NewMemoryFrontier() }, nil)
}

func TestDiskFrontier(t *testing.T) {
	var dir string
	open := func(t *testing.T) crawl.Frontier {
		dir = t.TempDir()
		f, err := crawl.OpenDiskFrontier(dir)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	reopen := func(t *testing.T) crawl.Frontier {
		f, err := crawl.OpenDiskFrontier(dir)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	frontiertest.Test(t, open, reopen)
}

func TestSpillingFrontier(t *testing.T) {
	frontiertest.Test(t, func(t *testing.T) crawl.Frontier { return crawl.NewSpillingFrontier(t.TempDir()) }, nil)
}

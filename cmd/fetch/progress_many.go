package main

import (
	"io"
	"iter"

	"github.com/rfc1738/fetch/fetch"
)

// multiProgress shows many transfers at once (--parallel, -r). A nil
// *multiProgress shows nothing.
type multiProgress struct{}

func (e *runEnv) newProgress(many bool) *multiProgress { return nil }

func (p *multiProgress) count(urls iter.Seq[string]) iter.Seq[string] { return urls }

func (p *multiProgress) wrap(res *fetch.Resource, w io.Writer) (io.Writer, func()) { return nil, nil }

func (p *multiProgress) wait() {}

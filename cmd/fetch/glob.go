package main

import (
	"fmt"
	"iter"
	"strconv"
	"strings"
)

// urlGlob is a URL with curl's globs: [1-100], [001-100:10], [a-z:2],
// {one,two,three}. Each glob is a list of alternatives; the URLs it stands
// for are every combination, the last glob varying fastest, as curl
// orders them. A backslash before [, ], { or } makes it a plain character;
// a [...] that is not a range (an IPv6 literal such as [::1]) is plain
// text.
type urlGlob struct {
	parts []globPart
	globs int // how many parts are globs
}

// globPart is literal text, or a glob's alternatives.
type globPart struct {
	text string
	alts []string // nil for text
	// rng describes a range's alternatives without holding them: from,
	// count, step, width (zero-padded digits), or letters.
	rng *globRange
}

type globRange struct {
	from, count, step int64
	width             int
	letters           bool
}

func (r *globRange) at(i int64) string {
	v := r.from + i*r.step
	if r.letters {
		return string(rune(v))
	}
	s := strconv.FormatInt(v, 10)
	if len(s) < r.width {
		s = strings.Repeat("0", r.width-len(s)) + s
	}
	return s
}

// maxGlobURLs bounds the URLs one glob may stand for.
const maxGlobURLs = 1 << 40

// parseGlob parses s's globs. A URL without any is one part of text.
func parseGlob(s string) (*urlGlob, error) {
	g := &urlGlob{}
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			g.parts = append(g.parts, globPart{text: text.String()})
			text.Reset()
		}
	}
	total := int64(1)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("[]{}", s[i+1]) >= 0:
			text.WriteByte(s[i+1])
			i++
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("glob at column %d: a { without its }", i+1)
			}
			body := s[i+1 : i+end]
			if strings.ContainsAny(body, "{[") {
				return nil, fmt.Errorf("glob at column %d: globs do not nest", i+1)
			}
			flush()
			alts := strings.Split(body, ",")
			g.parts = append(g.parts, globPart{alts: alts})
			g.globs++
			total *= int64(len(alts))
			i += end
		case c == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				text.WriteByte(c) // not a glob
				continue
			}
			r, ok, err := parseRange(s[i+1 : i+end])
			if err != nil {
				return nil, fmt.Errorf("glob at column %d: %v", i+1, err)
			}
			if !ok {
				text.WriteString(s[i : i+end+1]) // [::1] and the like
				i += end
				continue
			}
			flush()
			g.parts = append(g.parts, globPart{rng: r})
			g.globs++
			total *= r.count
			i += end
		default:
			text.WriteByte(c)
		}
		if total > maxGlobURLs || total <= 0 {
			return nil, fmt.Errorf("the globs stand for more than %d URLs", int64(maxGlobURLs))
		}
	}
	flush()
	return g, nil
}

// parseRange parses the inside of [...]: N-M[:STEP] or a-z[:STEP]. ok is
// false when it is no range at all (an IPv6 literal); err when it is one
// that is wrong.
func parseRange(s string) (r *globRange, ok bool, err error) {
	spec, stepText, hasStep := strings.Cut(s, ":")
	from, to, dash := strings.Cut(spec, "-")
	if !dash || from == "" || to == "" {
		return nil, false, nil
	}
	step := int64(1)
	if hasStep {
		step, err = strconv.ParseInt(stepText, 10, 64)
		if err != nil || step < 1 {
			return nil, false, fmt.Errorf("[%s]: the step must be a whole number of at least 1", s)
		}
	}
	if len(from) == 1 && len(to) == 1 && isLetter(from[0]) && isLetter(to[0]) {
		if (from[0] >= 'a') != (to[0] >= 'a') || to[0] < from[0] {
			return nil, false, fmt.Errorf("[%s]: a letter range goes up, within one case", s)
		}
		return &globRange{from: int64(from[0]), count: (int64(to[0])-int64(from[0]))/step + 1, step: step, letters: true}, true, nil
	}
	a, err1 := strconv.ParseInt(from, 10, 64)
	b, err2 := strconv.ParseInt(to, 10, 64)
	if err1 != nil || err2 != nil || a < 0 {
		if strings.Trim(spec, "0123456789abcdefABCDEF:.%-") == "" && strings.Contains(s, ":") {
			return nil, false, nil // hex and colons: an IPv6 address
		}
		return nil, false, fmt.Errorf("[%s]: want N-M or a-z", s)
	}
	if b < a {
		return nil, false, fmt.Errorf("[%s]: the range goes down", s)
	}
	width := 0
	if len(from) > 1 && from[0] == '0' {
		width = len(from)
	}
	return &globRange{from: a, count: (b-a)/step + 1, step: step, width: width}, true, nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// expand yields every URL g stands for with the values of its globs.
func (g *urlGlob) expand() iter.Seq2[string, []string] {
	return func(yield func(string, []string) bool) {
		idx := make([]int64, len(g.parts))
		size := func(p globPart) int64 {
			if p.rng != nil {
				return p.rng.count
			}
			return int64(len(p.alts))
		}
		for {
			var b strings.Builder
			vals := make([]string, 0, g.globs)
			for i, p := range g.parts {
				switch {
				case p.rng != nil:
					v := p.rng.at(idx[i])
					b.WriteString(v)
					vals = append(vals, v)
				case p.alts != nil:
					b.WriteString(p.alts[idx[i]])
					vals = append(vals, p.alts[idx[i]])
				default:
					b.WriteString(p.text)
				}
			}
			if !yield(b.String(), vals) {
				return
			}
			// The next combination: the last glob fastest.
			i := len(g.parts) - 1
			for ; i >= 0; i-- {
				p := g.parts[i]
				if p.rng == nil && p.alts == nil {
					continue
				}
				if idx[i]++; idx[i] < size(p) {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				return
			}
		}
	}
}

// globName fills #1, #2, ... in an -o name with a URL's glob values. A #
// not followed by the number of a glob stays as it is.
func globName(name string, vals []string) string {
	if !strings.Contains(name, "#") {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] != '#' {
			b.WriteByte(name[i])
			continue
		}
		j := i + 1
		for j < len(name) && name[j] >= '0' && name[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(name[i+1 : j])
		if err != nil || n < 1 || n > len(vals) {
			b.WriteByte('#')
			continue
		}
		b.WriteString(vals[n-1])
		i = j - 1
	}
	return b.String()
}

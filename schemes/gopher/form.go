package gopher

import (
	"context"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// Question is one entry of a Gopher+ +ASK form.
type Question struct {
	// Kind is the entry's keyword: Ask, AskP (a password), AskL (lines),
	// AskF (a file), Choose, ChooseF, Select or Note (text only, no
	// answer).
	Kind string
	// Prompt is the text shown to the user.
	Prompt string
	// Defaults holds the default answer (Ask) or the choices (Choose,
	// Select).
	Defaults []string
}

// Answered reports whether the question takes an answer (a Note does not).
func (q Question) Answered() bool { return q.Kind != "Note" }

// ParseAsk returns the questions of the +ASK block in a Gopher+ attribute
// reply (the lines that begin with a space after "+ASK:", up to the next
// attribute). Lines of unknown kinds are skipped.
func ParseAsk(attrs string) []Question {
	var qs []Question
	in := false
	for _, line := range strings.Split(attrs, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.HasPrefix(line, "+") {
			in = strings.HasPrefix(line, "+ASK:")
			continue
		}
		if !in || !strings.HasPrefix(line, " ") {
			continue
		}
		kind, rest, ok := strings.Cut(strings.TrimLeft(line, " "), ":")
		if !ok {
			continue
		}
		switch kind {
		case "Ask", "AskP", "AskL", "AskF", "Choose", "ChooseF", "Select", "Note":
		default:
			continue
		}
		fields := strings.Split(strings.TrimLeft(rest, " "), "\t")
		qs = append(qs, Question{Kind: kind, Prompt: fields[0], Defaults: fields[1:]})
	}
	return qs
}

// fetchForm fetches a Gopher+ item with a +ASK form (§3.4.5): it fetches
// the item's attributes ("!", which every Gopher+ server knows; some know
// no "!+ASK") to find its +ASK block, answers each question from h.Answers or through
// req.Prompt, and sends the answers in the form of §3.4.9 on a second
// connection.
func (h *Handler) fetchForm(ctx context.Context, req *fetch.Request, g url.Gopher) (*fetch.Resource, error) {
	s, err := h.open(ctx, req, []string{g.Selector + "\t!"}, nil)
	if err != nil {
		return nil, err
	}
	ag := g
	ag.Plus = "!"
	res, err := h.plusReply(s, req, ag)
	if err != nil {
		s.Close()
		return nil, err
	}
	attrs, err := readAll(res.Body, 64<<10)
	res.Body.Close()
	if err != nil {
		return nil, fetch.Wrap(fetch.Protocol, err)
	}
	qs := ParseAsk(string(attrs))
	lines := []string{g.Selector + "\t+\t1", "+-1"}
	shown := append([]string(nil), lines...)
	i := 0
	for _, q := range qs {
		if !q.Answered() {
			continue
		}
		var a string
		if i < len(h.Answers) {
			a = h.Answers[i]
		} else {
			label := q.Prompt
			if len(q.Defaults) > 0 {
				label += " [" + strings.Join(q.Defaults, "|") + "]"
			}
			a, err = ask(req, sanitize(label), q.Kind == "AskP")
			if err != nil {
				return nil, err
			}
			if a == "" && len(q.Defaults) > 0 && q.Kind != "Choose" && q.Kind != "ChooseF" {
				a = q.Defaults[0]
			}
		}
		i++
		if strings.ContainsAny(a, "\r\n\x00") {
			return nil, fetch.Errorf(fetch.Refused, "answer %d holds a CR, LF or NUL (RFC 1738 §6)", i)
		}
		if strings.HasPrefix(a, ".") {
			a = "." + a
		}
		lines = append(lines, a)
		if q.Kind == "AskP" {
			shown = append(shown, "****")
		} else {
			shown = append(shown, a)
		}
	}
	if i == 0 {
		req.Trace.Notef("the +ASK form has no questions")
	}
	lines = append(lines, ".")
	shown = append(shown, ".")
	s, err = h.open(ctx, req, lines, shown)
	if err != nil {
		return nil, err
	}
	pg := g
	pg.Plus = "+"
	res, err = h.plusReply(s, req, pg)
	if err != nil {
		s.Close()
		return nil, err
	}
	res.Extra[ExtraPlus] = "?"
	if len(attrs) <= maxAttrs {
		res.Header = ParseAttributes(string(attrs))
	}
	if req.Head {
		s.Close()
		res.Body = fetch.NoBody
	}
	return res, nil
}

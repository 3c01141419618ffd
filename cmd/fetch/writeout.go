package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/rfc1738/fetch/fetch"
)

// writeOut is a parsed -w/--write-out format: text and variables, printed
// after each URL's transfer as curl does.
type writeOut struct {
	parts []woPart

	mu      sync.Mutex
	timings map[int]*fetch.Timing // the last attempt's Timing of each URL in flight
}

// woPart is literal text, a variable, or a switch of the stream written to.
type woPart struct {
	text   string
	name   string // a variable's name; "" for text
	stream string // "stdout" or "stderr": the parts after it go there
}

// woVars are the variables of -w, each with what it reports. The order is
// that of %{json}'s keys and of the help.
var woVars = []struct{ name, help string }{
	{"url_effective", "the URL finally fetched, after redirects (password as ****)"},
	{"scheme", "the URL's scheme"},
	{"response_code", "the server's last reply code: HTTP status, FTP or NNTP reply (000 when none)"},
	{"http_code", "the same as response_code"},
	{"content_type", "the media type, as the server stated it or guessed from the name"},
	{"size_download", "bytes of the resource received"},
	{"speed_download", "size_download per second of time_total"},
	{"time_namelookup", "seconds from the start until the name was resolved"},
	{"time_connect", "seconds from the start until the connection was made"},
	{"time_starttransfer", "seconds from the start until the first byte of the resource"},
	{"time_total", "seconds from the start until the transfer ended"},
	{"num_redirects", "redirects (and referrals) followed"},
	{"filename_effective", "the file written (-o, -O), \"\" for stdout"},
	{"exitcode", "the exit code this URL alone would give"},
	{"errormsg", "the error, \"\" on success"},
}

// parseWriteOut parses a -w format: %{name} is a variable, %{json} all of
// them as one JSON object, %{stdout} and %{stderr} choose the stream for
// what follows, %% is %, and \n, \r, \t and \\ are the control characters
// and the backslash.
func parseWriteOut(format string) (*writeOut, error) {
	w := &writeOut{timings: map[int]*fetch.Timing{}}
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			w.parts = append(w.parts, woPart{text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch {
		case c == '%' && i+1 < len(format) && format[i+1] == '%':
			text.WriteByte('%')
			i++
		case c == '%' && i+1 < len(format) && format[i+1] == '{':
			end := strings.IndexByte(format[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("%q: a %%{ without its }", format[i:])
			}
			name := format[i+2 : i+end]
			i += end
			flush()
			switch {
			case name == "stdout" || name == "stderr":
				w.parts = append(w.parts, woPart{stream: name})
			case name == "json" || knownVar(name):
				w.parts = append(w.parts, woPart{name: name})
			default:
				return nil, fmt.Errorf("unknown variable %%{%s} (fetch --help lists them)", name)
			}
		case c == '\\' && i+1 < len(format):
			switch format[i+1] {
			case 'n':
				text.WriteByte('\n')
			case 'r':
				text.WriteByte('\r')
			case 't':
				text.WriteByte('\t')
			case '\\':
				text.WriteByte('\\')
			default:
				text.WriteByte(c)
				continue
			}
			i++
		default:
			text.WriteByte(c)
		}
	}
	flush()
	return w, nil
}

func knownVar(name string) bool {
	for _, v := range woVars {
		if v.name == name {
			return true
		}
	}
	return false
}

// readWriteOut is the -w argument's format: the text, or @FILE's
// contents (@- for stdin).
func readWriteOut(arg string, stdin io.Reader) (string, error) {
	name, ok := strings.CutPrefix(arg, "@")
	if !ok {
		return arg, nil
	}
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(io.LimitReader(stdin, 1<<20))
	} else {
		b, err = os.ReadFile(name)
	}
	return string(b), err
}

// track gives the attempt at URL i a Timing of its own, the one its
// write-out reports.
func (w *writeOut) track(i int, req *fetch.Request) {
	if w == nil {
		return
	}
	req.Timing = fetch.NewTiming()
	w.mu.Lock()
	w.timings[i] = req.Timing
	w.mu.Unlock()
}

// done takes URL i's Timing for its write-out, forgetting it.
func (w *writeOut) done(i int) *fetch.Timing {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.timings[i]
	delete(w.timings, i)
	return t
}

// woValues are one URL's values of the variables.
type woValues map[string]any

// values computes URL r's variables: its Resource's on success, else its
// final error's.
func (e *runEnv) woValues(r *fetch.Result, err error) woValues {
	rep := e.wo.done(r.Index).Report()
	v := woValues{
		"url_effective": r.Input, "scheme": "", "response_code": 0, "content_type": "",
		"size_download": rep.Bytes, "speed_download": 0.0,
		"time_namelookup": rep.NameLookup.Seconds(), "time_connect": rep.Connect.Seconds(),
		"time_starttransfer": rep.StartTransfer.Seconds(), "time_total": rep.Total.Seconds(),
		"num_redirects": rep.Redirects, "filename_effective": "", "exitcode": fetch.ExitCode(err), "errormsg": "",
	}
	if rep.Total > 0 {
		v["speed_download"] = float64(rep.Bytes) / rep.Total.Seconds()
	}
	if r.URL != nil {
		v["url_effective"], v["scheme"] = r.URL.Redacted(), r.URL.Scheme
		if dir, name, nerr := e.outputName(r.Index, r.URL); nerr == nil && name != "" {
			if dir != "" {
				name = dir + string(os.PathSeparator) + name
			}
			v["filename_effective"] = name
		}
	}
	if name, ok := e.named.LoadAndDelete(r.Index); ok {
		v["filename_effective"] = name.(string)
	}
	if res := r.Resource; res != nil && err == nil {
		if res.URL != nil {
			v["url_effective"], v["scheme"] = res.URL.Redacted(), res.URL.Scheme
		}
		v["response_code"], v["content_type"] = res.Status, res.MediaType
	}
	if err != nil {
		v["errormsg"] = strings.ReplaceAll(err.Error(), "\n", " ")
		v["filename_effective"] = "" // nothing was left there
		var re *fetch.ReplyError
		if errors.As(err, &re) {
			v["response_code"] = re.Code
		}
	}
	v["http_code"] = v["response_code"]
	return v
}

// write prints URL r's write-out to stdout (or stderr where %{stderr}
// says), after its bytes.
func (e *runEnv) writeOutFor(stdout io.Writer, r *fetch.Result, err error) {
	if e.wo == nil {
		return
	}
	v := e.woValues(r, err)
	var out, errb strings.Builder
	to := &out
	for _, p := range e.wo.parts {
		switch {
		case p.stream == "stdout":
			to = &out
		case p.stream == "stderr":
			to = &errb
		case p.name == "json":
			to.Write(v.json())
		case p.name != "":
			to.WriteString(v.text(p.name))
		default:
			to.WriteString(p.text)
		}
	}
	if out.Len() > 0 {
		io.WriteString(stdout, out.String())
	}
	if errb.Len() > 0 {
		e.errMu.Lock()
		io.WriteString(e.stderr, errb.String())
		e.errMu.Unlock()
	}
}

// text is a variable as -w prints it: times in seconds with six decimals,
// response codes in three digits, as curl prints them.
func (v woValues) text(name string) string {
	switch x := v[name].(type) {
	case float64:
		if name == "speed_download" {
			return strconv.FormatFloat(x, 'f', 0, 64)
		}
		return strconv.FormatFloat(x, 'f', 6, 64)
	case int:
		if name == "response_code" || name == "http_code" {
			return fmt.Sprintf("%03d", x)
		}
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case string:
		return fetch.Sanitize(x)
	}
	return fmt.Sprint(v[name])
}

// json is every variable as one JSON object, in woVars' order.
func (v woValues) json() []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i, wv := range woVars {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(wv.name)
		val, _ := json.Marshal(v[wv.name])
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return []byte(b.String())
}

package ftp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

func TestParseLIST(t *testing.T) {
	now := time.Date(2026, 11, 23, 17, 0, 0, 0, time.UTC)
	tests := []struct {
		line string
		want item
		err  error // errSkip, fetch.ErrUnparsed, or nil
	}{
		// vsftpd
		{"drwxr-xr-x    2 0        0            4096 Nov 23 17:05 sub", item{name: "sub", dir: true, size: -1, mtime: time.Date(2026, 11, 23, 17, 5, 0, 0, time.UTC)}, nil},
		// proftpd
		{"-rw-r--r--   1 root     root         3000 Nov 23 17:05 data.bin", item{name: "data.bin", size: 3000, mtime: time.Date(2026, 11, 23, 17, 5, 0, 0, time.UTC)}, nil},
		{"-rw-r--r--   1 root     root           11 Jan  5  2024 with  two spaces.txt", item{name: "with  two spaces.txt", size: 11, mtime: time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC)}, nil},
		// a date ahead of now is last year's
		{"-rw-r--r--   1 ftp ftp 5 Dec 30 10:00 old", item{name: "old", size: 5, mtime: time.Date(2025, 12, 30, 10, 0, 0, 0, time.UTC)}, nil},
		// no group column
		{"-rw-r--r--   1 owner 42 Mar  1 09:30 nogroup", item{name: "nogroup", size: 42, mtime: time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)}, nil},
		{"lrwxrwxrwx   1 root root 7 Nov 23 17:05 link -> target", item{name: "link", link: true, size: -1, mtime: time.Date(2026, 11, 23, 17, 5, 0, 0, time.UTC)}, nil},
		{"drwxr-xr-x   2 root root 4096 Nov 23 17:05 .", item{}, errSkip},
		{"total 12", item{}, errSkip},
		// DOS (IIS)
		{"11-23-26  05:05PM       <DIR>          Sub Dir", item{name: "Sub Dir", dir: true, size: -1, mtime: time.Date(2026, 11, 23, 17, 5, 0, 0, time.UTC)}, nil},
		{"01-02-2024  09:10AM                 3000 data.bin", item{name: "data.bin", size: 3000, mtime: time.Date(2024, 1, 2, 9, 10, 0, 0, time.UTC)}, nil},
		// neither
		{"this is not a listing line", item{}, fetch.ErrUnparsed},
		{"-rw-r--r-- 1 root root notasize Nov 23 17:05 x", item{}, fetch.ErrUnparsed},
		{"11-23-26  05:05PM       <DIR>", item{}, fetch.ErrUnparsed},
	}
	for _, tt := range tests {
		got, err := parseLIST(tt.line, now)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("parseLIST(%q) = %+v, %v, want %v", tt.line, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseLIST(%q) = %+v, %v\nwant %+v", tt.line, got, err, tt.want)
		}
	}
}

func TestParseMLSD(t *testing.T) {
	tests := []struct {
		line string
		want item
		err  error
	}{
		{"type=file;size=3000;modify=20261123170528;UNIX.mode=0644; data.bin", item{name: "data.bin", size: 3000, mtime: time.Date(2026, 11, 23, 17, 5, 28, 0, time.UTC)}, nil},
		{"Type=dir;Modify=20261123170528.123; sub dir", item{name: "sub dir", dir: true, size: -1, mtime: time.Date(2026, 11, 23, 17, 5, 28, 123e6, time.UTC)}, nil},
		{"type=file;media-type=text/plain; a b", item{name: "a b", size: -1, media: "text/plain"}, nil},
		{"type=OS.unix=symlink;size=7; link", item{name: "link", link: true, size: -1}, nil},
		{"type=OS.unix=slink:/srv/ftp/pub;modify=20261123170528; ln", item{name: "ln", link: true, size: -1, mtime: time.Date(2026, 11, 23, 17, 5, 28, 0, time.UTC)}, nil},
		{"type=cdir; /pub", item{}, errSkip},
		{"type=pdir; ..", item{}, errSkip},
		{"nospace", item{}, fetch.ErrUnparsed},
		{"size=3; notype", item{}, fetch.ErrUnparsed},
	}
	for _, tt := range tests {
		got, err := parseMLSD(tt.line)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("parseMLSD(%q) = %+v, %v, want %v", tt.line, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseMLSD(%q) = %+v, %v\nwant %+v", tt.line, got, err, tt.want)
		}
	}
}

// listServer serves listings: FEAT answers feat (nil: 500), and MLSD,
// LIST and NLST send their text over a passive data connection (a nil
// text: 500). It records the commands.
type listServer struct {
	feat             []string
	mlsd, list, nlst *string
	mu               sync.Mutex
	cmds             []string
}

func (ls *listServer) start(t *testing.T) string {
	var pasv net.Listener
	return scripted(t, nil, func(tp *textproto.Conn, verb, arg string) bool {
		ls.mu.Lock()
		ls.cmds = append(ls.cmds, strings.TrimSpace(verb+" "+arg))
		ls.mu.Unlock()
		text := map[string]*string{"MLSD": ls.mlsd, "LIST": ls.list, "NLST": ls.nlst}
		switch verb {
		case "CWD":
			tp.PrintfLine("250 ok")
		case "FEAT":
			if ls.feat == nil {
				tp.PrintfLine("500 FEAT not understood")
				return true
			}
			tp.PrintfLine("211-Features:")
			for _, f := range ls.feat {
				tp.PrintfLine(" %s", f)
			}
			tp.PrintfLine("211 End")
		case "EPSV":
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				tp.PrintfLine("425 no")
				return true
			}
			pasv = ln
			tp.PrintfLine("229 Entering Extended Passive Mode (|||%d|)", ln.Addr().(*net.TCPAddr).Port)
		case "MLSD", "LIST", "NLST":
			s := text[verb]
			if s == nil {
				pasv.Close()
				tp.PrintfLine("500 %s not understood", verb)
				return true
			}
			tp.PrintfLine("150 here")
			pasv.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
			dc, err := pasv.Accept()
			pasv.Close()
			if err != nil {
				tp.PrintfLine("425 no")
				return true
			}
			io.WriteString(dc, *s)
			dc.Close()
			tp.PrintfLine("226 done")
		default:
			return false
		}
		return true
	})
}

func listAll(t *testing.T, h *Handler, u string) ([]fetch.Entry, int, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l, err := h.List(ctx, req(t, u))
	if err != nil {
		return nil, 0, err
	}
	es, err := fetchtest.Entries(l)
	return es, l.Skipped(), err
}

// brief is an entry as "kind url size".
func brief(es []fetch.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Kind.String()+" "+e.URL.String()+" "+strconv.FormatInt(e.Size, 10))
	}
	return out
}

// TestList: MLSD when FEAT offers MLST, else LIST parsed (a DOS listing
// here), else NLST; unparsable lines are counted, directories' URLs end
// in "/".
func TestList(t *testing.T) {
	mlsd := "type=cdir; /pub\r\ntype=dir;modify=20261123170528; sub dir\r\ntype=file;size=5;modify=20261123170528; a.txt\r\ngarbage\r\n"
	dos := "11-23-26  05:05PM       <DIR>          sub dir\r\n11-23-26  05:05PM                    5 a.txt\r\nnot a line\r\n"
	names := "sub dir\r\na.txt\r\n"
	tests := []struct {
		name    string
		ls      *listServer
		want    []string
		skipped int
		cmd     string
	}{
		{"MLSD", &listServer{feat: []string{"MLST type*;size*;modify*;", "SIZE"}, mlsd: &mlsd, list: &dos}, []string{"directory ftp://H/pub/sub%20dir/ -1", "file ftp://H/pub/a.txt 5"}, 1, "MLSD"},
		{"DOS LIST", &listServer{feat: []string{"SIZE"}, list: &dos}, []string{"directory ftp://H/pub/sub%20dir/ -1", "file ftp://H/pub/a.txt 5"}, 1, "LIST"},
		{"NLST", &listServer{nlst: &names}, []string{"file ftp://H/pub/sub%20dir -1", "file ftp://H/pub/a.txt -1"}, 0, "NLST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := tt.ls.start(t)
			h := &Handler{}
			defer h.Close()
			es, skipped, err := listAll(t, h, "ftp://"+addr+"/pub/")
			if err != nil {
				t.Fatal(err)
			}
			got := brief(es)
			for i := range got {
				got[i] = strings.Replace(got[i], addr, "H", 1)
			}
			if !slices.Equal(got, tt.want) || skipped != tt.skipped {
				t.Errorf("entries %q, %d skipped\nwant %q, %d skipped", got, skipped, tt.want, tt.skipped)
			}
			if tt.name != "NLST" && !es[0].ModTime.Equal(time.Date(2026, 11, 23, 17, 5, es[0].ModTime.Second(), 0, time.UTC)) {
				t.Errorf("modification time %v", es[0].ModTime)
			}
			tt.ls.mu.Lock()
			defer tt.ls.mu.Unlock()
			if !slices.Contains(tt.ls.cmds, tt.cmd) || slices.Contains(tt.ls.cmds, "RETR") {
				t.Errorf("commands %q, want %s", tt.ls.cmds, tt.cmd)
			}
		})
	}
}

// TestWriteEntries: --menu's rendering of a listing: directories' URLs
// end in "/", names are escaped, unparsed lines are counted.
func TestWriteEntries(t *testing.T) {
	list := "drwxr-xr-x 2 0 0 4096 Nov 23 17:05 sub\r\n-rw-r--r-- 1 0 0 5 Nov 23 17:05 bad\x1b[2Jname\r\nnot a listing line\r\n"
	addr := (&listServer{list: &list}).start(t)
	h := &Handler{}
	defer h.Close()
	l, err := h.List(context.Background(), req(t, "ftp://"+addr+"/pub/"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var b strings.Builder
	if err := WriteEntries(&b, l); err != nil {
		t.Fatal(err)
	}
	want := "sub <ftp://" + addr + "/pub/sub/>\n" +
		`bad\x1b[2Jname <ftp://` + addr + "/pub/bad%1B%5B2Jname>\n" +
		"(1 lines of the listing could not be parsed)\n"
	if b.String() != want {
		t.Errorf("WriteEntries:\n%s\nwant\n%s", b.String(), want)
	}
}

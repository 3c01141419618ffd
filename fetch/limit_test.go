package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/url"
)

func TestLimitSize(t *testing.T) {
	u, _ := url.Parse("http://u:secret@127.0.0.1/f")
	body := strings.Repeat("x", 100)
	for _, tt := range []struct {
		name         string
		size, offset int64
		max          int64
		early, late  bool // refused before reading; while reading
		read         int  // bytes read
	}{
		{"known, fits", 100, 0, 100, false, false, 100},
		{"known, too large", 100, 0, 99, true, false, 0},
		{"known, resumed past", 50, 60, 100, true, false, 0},
		{"unknown, fits", -1, 0, 100, false, false, 100},
		{"unknown, too large", -1, 0, 50, false, true, 50},
		{"no limit", -1, 0, 0, false, false, 100},
	} {
		b := body
		if tt.offset > 0 {
			b = body[:tt.size]
		}
		res := &Resource{URL: u, Size: tt.size, Offset: tt.offset, Body: io.NopCloser(strings.NewReader(b))}
		err := LimitSize(res, tt.max)
		if (err != nil) != tt.early || err != nil && (!errors.Is(err, TooLarge) || strings.Contains(err.Error(), "secret")) {
			t.Errorf("%s: LimitSize = %v", tt.name, err)
			continue
		}
		if err != nil {
			continue
		}
		got, err := io.ReadAll(res.Body)
		if (err != nil) != tt.late || err != nil && !errors.Is(err, TooLarge) || len(got) != tt.read {
			t.Errorf("%s: read %d bytes, %v; want %d", tt.name, len(got), err, tt.read)
		}
	}
}

// TestLimitRate: 3000 bytes at 1000 a second take about three seconds (of
// the bubble's clock); a canceled context ends a wait.
func TestLimitRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		data := bytes.Repeat([]byte("y"), 3000)
		start := time.Now()
		rc := LimitRate(context.Background(), io.NopCloser(bytes.NewReader(data)), 1000)
		got, err := io.ReadAll(rc)
		took := time.Since(start)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("read %d bytes, %v", len(got), err)
		}
		if took < 2500*time.Millisecond || took > 3500*time.Millisecond {
			t.Errorf("3000 bytes at 1000/s took %v, want about 3s", took)
		}
		ctx, cancel := context.WithCancel(context.Background())
		rc = LimitRate(ctx, io.NopCloser(bytes.NewReader(data)), 10)
		go func() { time.Sleep(time.Second); cancel() }()
		if _, err := io.ReadAll(rc); !errors.Is(err, Canceled) {
			t.Errorf("canceled: %v, want Canceled", err)
		}
		ctx, cancel2 := context.WithTimeout(context.Background(), time.Second)
		defer cancel2()
		rc = LimitRate(ctx, io.NopCloser(bytes.NewReader(data)), 10)
		if _, err := io.ReadAll(rc); !errors.Is(err, Timeout) {
			t.Errorf("deadline: %v, want Timeout", err)
		}
	})
	if LimitRate(context.Background(), io.NopCloser(nil), 0) == nil {
		t.Error("no rate: nil")
	}
}

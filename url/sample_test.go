package url

import (
	"bufio"
	"os"
	"reflect"
	"testing"
)

// TestRealWorldSample parses a 2,000-line sample of the shared real-world
// corpus (every 49th line): nearly all parse leniently, each round-trips,
// and whatever the strict parser accepts the lenient one reads the same.
func TestRealWorldSample(t *testing.T) {
	f, err := os.Open("testdata/urls-sample.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, lenientOK, strictOK := 0, 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		in := sc.Text()
		n++
		lu, lerr := lenient.Parse(in)
		if lerr == nil {
			lenientOK++
			if u2, err := lenient.Parse(lu.String()); err != nil || !reflect.DeepEqual(lu, u2) {
				t.Errorf("ParseLenient(%q) does not round-trip through %q: %v", in, lu.String(), err)
			}
		}
		su, serr := strict.Parse(in)
		if serr == nil {
			strictOK++
			if lerr != nil || !reflect.DeepEqual(su, lu) {
				t.Errorf("Parse(%q) = %s, but ParseLenient = %s, %v", in, dump(su), dump(lu), lerr)
			}
		}
	}
	t.Logf("%d URLs: %d parse leniently, %d strictly", n, lenientOK, strictOK)
	if lenientOK < n*995/1000 {
		t.Errorf("only %d of %d parse leniently", lenientOK, n)
	}
}

package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestOptionsRegistered reads this package's source: no file registers
// options from an init function, every package-level []option slice of an
// options file is named in commonOptions or schemeOptions, and every name
// those lists hold is such a slice.
func TestOptionsRegistered(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	defined := map[string]string{} // slice name → file
	var listed []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "init" {
					t.Errorf("%s: func init(): options are listed in options.go, not registered by init", name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					vs, ok := s.(*ast.ValueSpec)
					if !ok {
						continue
					}
					for i, id := range vs.Names {
						if i >= len(vs.Values) {
							continue
						}
						switch v := vs.Values[i].(type) {
						case *ast.CompositeLit:
							if at, ok := v.Type.(*ast.ArrayType); ok && at.Len == nil {
								if elt, ok := at.Elt.(*ast.Ident); ok && elt.Name == "option" {
									defined[id.Name] = name
								}
							}
						case *ast.CallExpr:
							if fn, ok := v.Fun.(*ast.Ident); ok && fn.Name == "concat" &&
								(id.Name == "commonOptions" || id.Name == "schemeOptions") {
								for _, a := range v.Args {
									if a, ok := a.(*ast.Ident); ok {
										listed = append(listed, a.Name)
									}
								}
							}
						}
					}
				}
			}
		}
	}
	if len(defined) == 0 || len(listed) == 0 {
		t.Fatalf("found slices %v and lists %v: the test no longer reads the source right", defined, listed)
	}
	seen := map[string]bool{}
	for _, n := range listed {
		if seen[n] {
			t.Errorf("%s is listed twice", n)
		}
		seen[n] = true
		if _, ok := defined[n]; !ok {
			t.Errorf("%s is listed but is no []option slice", n)
		}
	}
	var missing []string
	for n, file := range defined {
		if !seen[n] {
			missing = append(missing, n+" ("+file+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("%s is defined but listed in neither commonOptions nor schemeOptions", m)
	}
}

// TestOptionNames checks that no two options share a long or short name
// and that each has help.
func TestOptionNames(t *testing.T) {
	long := map[string]bool{}
	short := map[byte]bool{}
	for _, o := range allOptions() {
		if o.long == "" || long[o.long] {
			t.Errorf("option --%s: empty or twice", o.long)
		}
		long[o.long] = true
		if o.short != 0 {
			if short[o.short] {
				t.Errorf("option -%c twice", o.short)
			}
			short[o.short] = true
		}
		if o.help == "" || o.set == nil {
			t.Errorf("option --%s has no help or no setter", o.long)
		}
	}
}

// Package deps pins the project's planned dependencies in go.mod while the
// packages that use them are being written. Remove it once they all are.
package deps

import (
	_ "cuelang.org/go/cue"
	_ "github.com/apache/arrow-go/v18/parquet/pqarrow"
	_ "github.com/bytecodealliance/wasmtime-go/v39"
	_ "github.com/chromedp/chromedp"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/perf/benchmath"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/term"
	_ "gonum.org/v1/plot"
	_ "gonum.org/v1/plot/vg/vgimg"
	_ "gonum.org/v1/plot/vg/vgsvg"
)

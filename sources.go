// Package spawnbench embeds the benchmark sources (c/, manual/ and the
// JavaScript wasi-threads host's own files in jshost/) so the spawnbench
// binary can build them from any directory.
package spawnbench

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

//go:embed c manual jshost/*.mjs jshost/*.html
var sourceFS embed.FS

// Sources is the embedded benchmark tree; it implements env.Sources.
var Sources embeddedSources

type embeddedSources struct{}

// WriteTo copies every embedded file into dir, keeping relative paths.
func (embeddedSources) WriteTo(dir string) error {
	return fs.WalkDir(sourceFS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := sourceFS.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// Hash is the SHA-256 over every embedded file's path and content.
func (embeddedSources) Hash() string {
	var paths []string
	_ = fs.WalkDir(sourceFS, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, path)
		}
		return err
	})
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		b, _ := sourceFS.ReadFile(p)
		h.Write([]byte(p))
		h.Write([]byte{0})
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// builtinSpecs are the specs `spawnbench calibrate` uses by default, with
// the CUE module and shared package they import.
//
//go:embed specs/calibrate.cue specs/cue.mod/module.cue specs/shared/*.cue
var builtinSpecs embed.FS

// BuiltinSpecs is specs/ as embedded: calibrate.cue (the default of
// `spawnbench calibrate`), cue.mod and shared/; read it with
// spec.ParseBuiltin.
var BuiltinSpecs, _ = fs.Sub(builtinSpecs, "specs")

// Package buildcache keeps each payload's benchmark build, so an
// unchanged payload is never rebuilt, and environments that run the same
// payload with the same build settings on different hosts share one.
//
// This package is opinionated: a build is named by the payload, the hash
// of the benchmark sources and the payload's build key (never a host's),
// and only a finished
// build ever carries that name (builds happen in a temporary directory
// renamed into place), so an interrupted build is never mistaken for one.
package buildcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"spawnbench/engine/env"
)

// Cache keeps builds under Dir.
type Cache struct {
	Dir     string
	Sources env.Sources
}

// Default is under the user's cache directory.
func Default(src env.Sources) *Cache {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return &Cache{Dir: filepath.Join(base, "spawnbench", "builds"), Sources: src}
}

// Buildable is what the cache builds: an environment's payload.
type Buildable interface {
	// BuildName names the build directory (the payload).
	BuildName() string
	BuildKey(ctx context.Context) string
	Build(ctx context.Context, srcDir, outDir string) error
}

var _ Buildable = (*env.Environment)(nil)

// Build returns the build directory for e's payload, building it if
// needed. Builds happen in a temporary directory renamed into place, so
// an interrupted build is never mistaken for a finished one.
func (c *Cache) Build(ctx context.Context, e Buildable) (dir string, cached bool, err error) {
	h := sha256.Sum256([]byte(c.Sources.Hash() + "\x00" + e.BuildKey(ctx)))
	dir = filepath.Join(c.Dir, e.BuildName()+"-"+hex.EncodeToString(h[:8]))
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return dir, true, nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return "", false, fmt.Errorf("create build cache: %w", err)
	}
	work, err := os.MkdirTemp(c.Dir, ".build-*")
	if err != nil {
		return "", false, fmt.Errorf("create build directory: %w", err)
	}
	defer os.RemoveAll(work)
	src, out := filepath.Join(work, "src"), filepath.Join(work, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", false, err
	}
	if err := c.Sources.WriteTo(src); err != nil {
		return "", false, fmt.Errorf("write benchmark sources: %w", err)
	}
	if err := e.Build(ctx, src, out); err != nil {
		return "", false, err
	}
	if err := os.WriteFile(filepath.Join(out, ".complete"), nil, 0o644); err != nil {
		return "", false, err
	}
	os.RemoveAll(dir) // a stale, incomplete directory from an older layout
	if err := os.Rename(out, dir); err != nil {
		return "", false, fmt.Errorf("store build: %w", err)
	}
	return dir, false, nil
}

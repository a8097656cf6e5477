// Package buildcache keeps each payload's benchmark build, so an
// unchanged payload is never rebuilt, and environments that run the same
// payload with the same build settings on different hosts share one.
//
// This package is opinionated: a build is named by the payload, the hash
// of the benchmark sources and the payload's build key (never a host's),
// and only a finished
// build ever carries that name (builds happen in a temporary directory
// renamed into place), so an interrupted build is never mistaken for one.
//
// A cached build is run as spawnbench's user, root often: so the cache is
// used only where no other user can have put or changed a build. The
// cache directory and every directory above it must belong to that user
// or to root and be writable by no one else (a directory such as /tmp,
// writable by all but sticky, may be above it); every build in it must
// belong to that user or root, writable by no one else, files and
// directories alike. Anything else is refused with the path and the fix,
// never used. A finished build also records the SHA-256 of each of its
// files, and a build whose files no longer match is built anew.
package buildcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"spawnbench/engine/env"
	"spawnbench/engine/trust"
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
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return "", false, fmt.Errorf("create build cache: %w", err)
	}
	if err := ownDirectory(c.Dir); err != nil {
		return "", false, err
	}
	if _, err := os.Lstat(filepath.Join(dir, completeFile)); err == nil {
		if err := ownTree(dir); err != nil {
			return "", false, err
		}
		if verify(dir) == nil {
			return dir, true, nil
		}
		// Changed since it was built (or built before builds recorded
		// their files): built anew.
		if err := os.RemoveAll(dir); err != nil {
			return "", false, fmt.Errorf("remove the changed build %s: %w", dir, err)
		}
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
	if err := record(out); err != nil {
		return "", false, err
	}
	if err := os.Rename(out, dir); err != nil {
		// Another spawnbench of this user stored the same build while
		// this one built it: that one is used, never removed under it.
		if finished(dir) {
			return dir, false, nil
		}
		// A stale, incomplete directory from an older layout.
		if err := os.RemoveAll(dir); err != nil {
			return "", false, fmt.Errorf("remove the incomplete build %s: %w", dir, err)
		}
		if err := os.Rename(out, dir); err != nil {
			if finished(dir) {
				return dir, false, nil
			}
			return "", false, fmt.Errorf("store build: %w", err)
		}
	}
	return dir, false, nil
}

// finished says whether dir holds a finished build, this user's, whose
// files match its manifest.
func finished(dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, completeFile)); err != nil {
		return false
	}
	return ownTree(dir) == nil && verify(dir) == nil
}

// completeFile marks a finished build, and holds the SHA-256 of each of
// its files (manifest), as JSON.
const completeFile = ".complete"

// manifest maps each file of a build, by its slash-separated path in the
// build, to its SHA-256 in hex.
type manifest map[string]string

// hashFiles hashes every regular file under dir but the manifest.
func hashFiles(dir string) (manifest, error) {
	m := manifest{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == completeFile {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		m[filepath.ToSlash(rel)] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	return m, err
}

// record writes a finished build's manifest.
func record(dir string) error {
	m, err := hashFiles(dir)
	if err != nil {
		return fmt.Errorf("hash the build's files: %w", err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, completeFile), b, 0o644); err != nil {
		return fmt.Errorf("mark the build finished: %w", err)
	}
	return nil
}

// verify says whether every file the build's manifest names still has
// its hash. Files added later (a host's staging, engine/env) are not in
// it: ownTree vouches for them.
func verify(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, completeFile))
	if err != nil {
		return err
	}
	var want manifest
	// A build of no files (a command payload's) records "{}": a manifest
	// still, which a finished build removed and rebuilt under a process
	// running in it would not be.
	if err := json.Unmarshal(b, &want); err != nil || want == nil {
		return fmt.Errorf("%s records no manifest", completeFile)
	}
	for rel, sum := range want {
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		if hex.EncodeToString(h.Sum(nil)) != sum {
			return fmt.Errorf("%s changed since it was built", rel)
		}
	}
	return nil
}

// ForeignError is a cache directory or build that another user could
// have put or changed: it is never used.
type ForeignError struct {
	Path string
	Why  string
	Fix  string
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("the build cache's %s %s, so another user could have put or changed the builds spawnbench runs: it is not used; %s", e.Path, e.Why, e.Fix)
}

// ownDirectory refuses a cache directory that another user could change,
// or reach through a directory above it.
func ownDirectory(dir string) error {
	p, above, why, err := trust.Foreign(dir)
	if err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	if why == "" {
		return nil
	}
	fix := fmt.Sprintf("give spawnbench a cache of its user's own (XDG_CACHE_HOME=<a directory only it may write>), or fix it: chown $(id -u) %s; chmod go-w %s", p, p)
	if above {
		fix = fmt.Sprintf("give spawnbench a cache elsewhere (XDG_CACHE_HOME=<a directory only it may write>), or fix %s: chmod go-w %s (or +t)", p, p)
	}
	return &ForeignError{Path: "directory " + p, Why: why, Fix: fix}
}

// ownTree refuses a build any file or directory of which another user
// could have made or changed.
func ownTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if why := trust.Owned(fi, false); why != "" {
			return &ForeignError{Path: "build " + path, Why: why, Fix: "remove it (rm -rf " + dir + ") to have it built anew"}
		}
		return nil
	})
}

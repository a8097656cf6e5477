package env

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
)

// wamr: WAMR's iwasm, one fresh process per repetition, on the
// wasi-freestanding payload's very .wasm files, run as iwasm was built:
// .ci/setup builds WAMR 2.4.4 with lib-wasi-threads, whose cmake default
// is the fast interpreter (no JIT).
//
// WAMR caps the threads of a module instance (its cluster) at
// --max-threads, 4 by default, not counting the main thread; a spawn
// past the cap fails. A thread that pthread_join has seen finish is still
// in the cluster until its OS thread has unwound, so sequential, too, can
// have up to n threads there at once (seen on a busy machine: sequential
// n = 1000 fails at the default). The host raises --max-threads to n when
// n is above the default, and passes nothing otherwise. With
// lib-wasi-threads the cap sizes nothing (thread stacks are the module's
// own), so raising it changes no spawn's cost.
//
// The WASI clock the C code reads is clock_gettime(CLOCK_MONOTONIC) in
// every thread, so one origin for all of them; the tests hold each spawn
// to 0 <= spawn_ns <= joined_ns to keep that true.
type wamr struct{ cfg wamrSettings }

type wamrSettings struct {
	// Iwasm is the runtime: a command name looked up as toolPath says, or
	// a path.
	Iwasm string `json:"iwasm"`
	// IwasmFlags go after spawnbench's own (--max-threads), before the
	// module; iwasm takes the last of a repeated flag.
	IwasmFlags []string `json:"iwasm_flags"`
}

// wamrDefaultMaxThreads is iwasm's own --max-threads default
// (CLUSTER_MAX_THREAD_NUM).
const wamrDefaultMaxThreads = 4

const wamrInstall = "bash .ci/setup (builds WAMR 2.4.4's iwasm with lib-wasi-threads from " +
	"../shared/vendor/wamr-2.4.4.tar.gz into .tools/, linked as bin/iwasm), " +
	"or any iwasm built with cmake -DWAMR_BUILD_LIB_WASI_THREADS=1 on PATH"

func init() {
	RegisterHost("wamr", "WAMR's iwasm (lib-wasi-threads, its interpreter as built)", FormModule,
		HostFacts{Family: hostfacts.WAMR, ClockStepNS: 1, Install: wamrInstall},
		func(cfg wamrSettings) Host { return &wamr{cfg: cfg} })
}

func (h *wamr) Toolchain(ctx context.Context) Toolchain {
	return probedToolchain(ctx, h.cfg.Iwasm, wamrInstall, h.probe)
}

// probe runs one wasi-threads spawn (spawn_probe.wat) with the flags the
// benchmarks get, so an iwasm built without lib-wasi-threads is found
// here, not at run time.
func (h *wamr) probe(ctx context.Context, path string) error {
	said, err := runSpawnProbe(ctx, "wamr", append([]string{path}, h.cfg.IwasmFlags...), func(module string) proc.Command {
		return proc.Command{Argv: append(append([]string{path}, h.cfg.IwasmFlags...), module)}
	})
	if err != nil || said == "" {
		return err
	}
	flags := ""
	if len(h.cfg.IwasmFlags) > 0 {
		flags = fmt.Sprintf(", and iwasm_flags %q must allow one thread", h.cfg.IwasmFlags)
	}
	return fmt.Errorf("iwasm cannot run a wasi-threads spawn: it needs WAMR built with lib-wasi-threads "+
		"(cmake -DWAMR_BUILD_LIB_WASI_THREADS=1)%s; the probe gave: %s", flags, said)
}

// wamrMaxThreads is what repetition r needs beyond iwasm's defaults:
// room for n threads in the cluster.
func wamrMaxThreads(r Repetition) []string {
	if (r.Benchmark == Sequential || r.Benchmark == Parallel) && r.Arg > wamrDefaultMaxThreads {
		return []string{fmt.Sprintf("--max-threads=%d", r.Arg)}
	}
	return nil
}

func (h *wamr) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	path, err := toolPath(h.cfg.Iwasm)
	if err != nil {
		return Outcome{}, err
	}
	argv := append([]string{path}, wamrMaxThreads(r)...)
	argv = append(argv, h.cfg.IwasmFlags...)
	argv = append(argv, filepath.Join(r.BuildDir, e.File))
	argv = append(argv, e.Args...)
	// iwasm writes its own messages (its log, a trap, a load error) to
	// standard output, which the benchmark's protocol lines share: they
	// go to the Outcome's stderr instead, where runtimes say why.
	split := &iwasmStdout{protocol: r.Stdout}
	if r.Stdout == nil {
		split.protocol = &split.kept
	}
	out, err := proc.Run(ctx, proc.Command{Argv: argv, CPUs: r.CPUs, Stdout: split})
	if err != nil {
		return out, err
	}
	if r.Stdout == nil {
		out.Stdout, out.StdoutDropped = split.kept.Bytes(), split.dropped
	}
	if msg := split.messages.Bytes(); len(msg) > 0 {
		if len(out.Stderr) > 0 && out.Stderr[len(out.Stderr)-1] != '\n' {
			out.Stderr = append(out.Stderr, '\n')
		}
		out.Stderr = append(append(out.Stderr, "iwasm said:\n"...), msg...)
		if bytes.Contains(msg, []byte("maximum number of threads exceeded")) {
			out.Stderr = append(out.Stderr, h.capHint(r)...)
		}
	}
	return out, nil
}

// capHint says why iwasm refused a thread: a lower --max-threads in
// iwasm_flags, or an iwasm that counts otherwise than WAMR 2.4.4.
func (h *wamr) capHint(r Repetition) string {
	ours := max(r.Arg, wamrDefaultMaxThreads)
	for _, f := range h.cfg.IwasmFlags {
		if strings.HasPrefix(f, "--max-threads") {
			return fmt.Sprintf("spawnbench: iwasm's thread cap was too low for %s n = %d: the wamr host passes "+
				"--max-threads=%d, and iwasm_flags' %s came after it; remove it from iwasm_flags\n", r.Benchmark, r.Arg, ours, f)
		}
	}
	return fmt.Sprintf("spawnbench: iwasm refused a thread of %s n = %d at --max-threads=%d, which WAMR 2.4.4 counts "+
		"without the main thread: this iwasm counts otherwise\n", r.Benchmark, r.Arg, ours)
}

// iwasmStdout splits iwasm's standard output: a line that starts with a
// letter or '[' (WAMR's log lines, "Exception: ...", load errors) is
// iwasm's, as no line of the benchmark protocol (c/sb.h: numbers, '#'
// directives, blank lines) starts so; every other line goes to protocol
// untouched, so malformed benchmark output is still caught there.
type iwasmStdout struct {
	protocol io.Writer
	// kept holds the protocol's lines when the repetition has no writer
	// of its own, up to proc.StdoutKept as proc would; dropped counts the
	// rest.
	kept     bytes.Buffer
	dropped  int64
	messages bytes.Buffer
	// inLine is set inside a line; iwasmLine says whose it is.
	inLine, iwasmLine bool
	// failed is set once protocol refused a write: it gets no more, and
	// iwasm's lines are still kept (a proc writer that errs is dropped).
	failed bool
}

// maxIwasmMessages bounds what is kept of iwasm's own lines.
const maxIwasmMessages = 64 << 10

func (w *iwasmStdout) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if !w.inLine {
			c := p[0]
			w.inLine = true
			w.iwasmLine = c == '[' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
		}
		end := bytes.IndexByte(p, '\n') + 1
		if end == 0 {
			end = len(p)
		} else {
			w.inLine = false
		}
		chunk := p[:end]
		p = p[end:]
		if w.iwasmLine {
			w.messages.Write(chunk[:min(len(chunk), max(0, maxIwasmMessages-w.messages.Len()))])
			continue
		}
		if w.protocol == &w.kept {
			keep := min(len(chunk), max(0, proc.StdoutKept-w.kept.Len()))
			w.kept.Write(chunk[:keep])
			w.dropped += int64(len(chunk) - keep)
			continue
		}
		if !w.failed {
			if _, err := w.protocol.Write(chunk); err != nil {
				w.failed = true
			}
		}
	}
	return n, nil
}

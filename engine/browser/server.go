package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path"
	"strings"
	"sync"
	"time"
)

// server serves one build directory to one page: on a loopback address of
// its own (an origin no earlier page had), on a port the kernel picks,
// read-only, with the headers that make its pages cross-origin isolated
// (SharedArrayBuffer, and so Emscripten's pthreads, need that). It also
// takes the page's lines (reporter.js) under reportPath, and puts the
// reporter into every HTML page it serves, before the page's own scripts.
type server struct {
	url  string
	root *os.Root
	http *http.Server
	done chan error
}

// reporter is the page-to-spawnbench channel: the same in every browser.
type reporter struct {
	// script is reporter.js, filled in for the page.
	script []byte
	// take gets each message the page posts, in order.
	take func(msg string)
}

// reportPath is where the page's reporter lives and posts; no build
// directory has a directory of that name.
const reportPath = "/__spawnbench/"

// serve starts serving dir on host (a loopback address), or on 127.0.0.1
// where the system has no such address. os.Root keeps every request
// inside dir, even through a symbolic link. rep may be nil (tests).
func serve(dir, host string, rep *reporter) (*server, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open the directory to serve: %w", err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil && host != "127.0.0.1" {
		// Not every system routes all of 127.0.0.0/8 to loopback; a new
		// port is a new origin too.
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("listen on loopback: %w", err)
	}
	s := &server{
		url:  "http://" + ln.Addr().String() + "/",
		root: root,
		done: make(chan error, 1),
	}
	var files http.Handler = http.FileServerFS(root.FS())
	if rep != nil {
		files = rep.handler(root, files)
	}
	s.http = &http.Server{Handler: isolated(files, rep != nil), ReadHeaderTimeout: 10 * time.Second}
	go func() { s.done <- s.http.Serve(ln) }()
	return s, nil
}

// isolated adds the cross-origin isolation headers to every answer and
// refuses anything but reading (and, with a reporter, its posts).
func isolated(files http.Handler, reports bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		post := reports && r.Method == http.MethodPost && r.URL.Path == reportPath+"report"
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !post {
			http.Error(w, "read-only", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Embedder-Policy", "require-corp")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		// Every page is a fresh origin in a fresh context, so a cache
		// could only hold stale files from a rebuilt directory.
		h.Set("Cache-Control", "no-store")
		files.ServeHTTP(w, r)
	})
}

// close stops the server and waits for it.
func (s *server) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if err != nil {
		// Connections a dead browser left open must not hold the run.
		err = s.http.Close()
	}
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if cerr := s.root.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("stop the page server: %w", err)
	}
	return nil
}

// handler serves the reporter's script and posts, and every HTML page of
// root with the reporter's script put first.
func (rep *reporter) handler(root *os.Root, files http.Handler) http.Handler {
	var mu sync.Mutex // one message at a time, in the order they came
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == reportPath+"report" && r.Method == http.MethodPost:
			body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			mu.Lock()
			rep.take(string(body))
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		case r.URL.Path == reportPath+"reporter.js":
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			w.Write(rep.script)
		case strings.HasSuffix(r.URL.Path, ".html"):
			page, err := root.ReadFile(strings.TrimPrefix(path.Clean(r.URL.Path), "/"))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(withReporter(page))
		default:
			files.ServeHTTP(w, r)
		}
	})
}

// withReporter puts the reporter's script tag at the start of an HTML
// page, after its doctype (a tag before it would put the page in quirks
// mode), so it runs before any of the page's own scripts.
func withReporter(page []byte) []byte {
	tag := []byte(`<script src="` + reportPath + `reporter.js"></script>` + "\n")
	at := 0
	if bytes.HasPrefix(bytes.ToLower(bytes.TrimSpace(page)), []byte("<!doctype")) {
		if end := bytes.IndexByte(page, '>'); end >= 0 {
			at = end + 1
		}
	}
	out := append([]byte(nil), page[:at]...)
	if at > 0 {
		out = append(out, '\n')
	}
	out = append(out, tag...)
	return append(out, page[at:]...)
}

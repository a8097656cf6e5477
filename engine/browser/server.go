package browser

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// server serves one build directory to one page: on a loopback address of
// its own (an origin no earlier page had), on a port the kernel picks,
// read-only, with the headers that make its pages cross-origin isolated
// (SharedArrayBuffer, and so Emscripten's pthreads, need that). It also
// takes the page's lines (reporter.js) under reportPath, and puts the
// reporter into every HTML page it serves, before the page's own scripts.
//
// Any local user can find the port (/proc/net/tcp), and a web page in any
// browser on the machine may send it a simple request. So everything the
// server serves, and takes, is under a path of the page's own secret:
// the page learns it from the URL it is opened at (which never appears on
// a command line), and its files, its workers and its reporter reach it by
// relative URLs. A request without it is refused (403), and each refusal
// goes to the page's record (reporter.refuse): nothing outside the page
// can end it, add to its output or read its files. Only the browser's own
// request for /favicon.ico is answered otherwise: there is none (404).
type server struct {
	// url is the page's base: http://host:port/<secret>/.
	url  string
	root *os.Root
	http *http.Server
	done chan error
	// refused counts the requests refused for want of the secret.
	refused atomic.Int64
}

// reporter is the page-to-spawnbench channel: the same in every browser.
type reporter struct {
	// argv is the page's spawnbench.argv, as JSON.
	argv []byte
	// take gets each message the page posts, in order.
	take func(msg string)
	// refuse gets each request refused for want of the page's secret,
	// described in a line.
	refuse func(what string)
	// follow, when set, is called on the page's followMessage, which the
	// page posts before it runs and then waits for the answer.
	follow func()
}

// reportPath is where, under the page's secret, the page's reporter lives
// and posts; no build directory has a directory of that name.
const reportPath = "/__spawnbench/"

// listenFunc makes a TCP listener on addr: net.Listen's, or one in
// spawnbench's own network namespace (privateNet.listen).
type listenFunc func(addr string) (net.Listener, error)

func listenHere(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

// newSecret is a page's secret: 130 random bits, in letters and digits
// that need no escaping in a URL.
func newSecret() string { return rand.Text() }

// serve starts serving dir on host (a loopback address), or on 127.0.0.1
// where the system has no such address, with a listener of listen (nil:
// the machine's loopback). os.Root keeps every request inside dir, even
// through a symbolic link. rep may be nil (tests).
func serve(dir, host string, listen listenFunc, rep *reporter) (*server, error) {
	if listen == nil {
		listen = listenHere
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open the directory to serve: %w", err)
	}
	ln, err := listen(net.JoinHostPort(host, "0"))
	if err != nil && host != "127.0.0.1" {
		// Not every system routes all of 127.0.0.0/8 to loopback; a new
		// port is a new origin too.
		ln, err = listen("127.0.0.1:0")
	}
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("listen on loopback: %w", err)
	}
	secret := newSecret()
	s := &server{
		url:  "http://" + ln.Addr().String() + "/" + secret + "/",
		root: root,
		done: make(chan error, 1),
	}
	var files http.Handler = http.FileServerFS(root.FS())
	if rep != nil {
		files = rep.handler(root, files, "/"+secret+reportPath)
	}
	s.http = &http.Server{Handler: s.guard(secret, isolated(files, rep != nil), rep), ReadHeaderTimeout: 10 * time.Second}
	go func() { s.done <- s.http.Serve(ln) }()
	return s, nil
}

// guard passes on only the requests under the secret's path, with that
// path taken off, and refuses the rest.
func (s *server) guard(secret string, next http.Handler, rep *reporter) http.Handler {
	prefix := "/" + secret + "/"
	inside := http.StripPrefix("/"+secret, next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		// In constant time: the answer's timing tells nothing of the
		// secret.
		if len(p) >= len(prefix) && subtle.ConstantTimeCompare([]byte(p[:len(prefix)]), []byte(prefix)) == 1 {
			inside.ServeHTTP(w, r)
			return
		}
		if p == "/favicon.ico" && r.Method == http.MethodGet {
			// The browser asks for it by itself, at the origin's root:
			// there is none, and the answer gives nothing away.
			http.NotFound(w, r)
			return
		}
		s.refused.Add(1)
		if rep != nil && rep.refuse != nil {
			shown := r.URL.Path
			if len(shown) > 80 {
				shown = shown[:80] + "..."
			}
			rep.refuse(fmt.Sprintf("%s %q from %s", r.Method, shown, r.RemoteAddr))
		}
		http.Error(w, "forbidden", http.StatusForbidden)
	})
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

// shutdownLimit bounds a page server's graceful stop. The page has
// ended by then, yet a graceful stop can wait on a connection the
// browser still holds (a preconnect counts as busy for 5 s): 39 of the
// 773 browser pages of the main job of 7 December 2026 each waited the
// whole 2 s of the limit before.
const shutdownLimit = 250 * time.Millisecond

// close stops the server and waits for it.
func (s *server) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownLimit)
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
// root with the reporter's script put first; at is where the page finds
// the reporter (under its secret).
func (rep *reporter) handler(root *os.Root, files http.Handler, at string) http.Handler {
	script := []byte(reporterScript(at+"report", rep.argv, rep.follow != nil))
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
			if string(body) == followMessage && rep.follow != nil {
				rep.follow()
			} else {
				rep.take(string(body))
			}
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		case r.URL.Path == reportPath+"reporter.js":
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			w.Write(script)
		case strings.HasSuffix(r.URL.Path, ".html"):
			page, err := root.ReadFile(strings.TrimPrefix(path.Clean(r.URL.Path), "/"))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(withReporter(page, at+"reporter.js"))
		default:
			files.ServeHTTP(w, r)
		}
	})
}

// withReporter puts the reporter's script tag (of src) at the start of an
// HTML page, after its doctype (a tag before it would put the page in
// quirks mode), so it runs before any of the page's own scripts.
func withReporter(page []byte, src string) []byte {
	tag := []byte(`<script src="` + src + `"></script>` + "\n")
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

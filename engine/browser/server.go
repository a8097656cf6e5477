package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

// server serves one build directory to one browser: on loopback only, on a
// port the kernel picks, read-only, with the headers that make its pages
// cross-origin isolated (SharedArrayBuffer, and so Emscripten's pthreads,
// need that).
type server struct {
	url  string
	root *os.Root
	http *http.Server
	done chan error
}

// serve starts serving dir. os.Root keeps every request inside dir, even
// through a symbolic link.
func serve(dir string) (*server, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open the directory to serve: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("listen on loopback: %w", err)
	}
	s := &server{
		url:  "http://" + ln.Addr().String() + "/",
		root: root,
		done: make(chan error, 1),
	}
	s.http = &http.Server{Handler: isolated(http.FileServerFS(root.FS())), ReadHeaderTimeout: 10 * time.Second}
	go func() { s.done <- s.http.Serve(ln) }()
	return s, nil
}

// isolated adds the cross-origin isolation headers to every answer and
// refuses anything but reading.
func isolated(files http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "read-only", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Embedder-Policy", "require-corp")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		// Every repetition is a fresh browser, so a cache could only
		// hold stale files from a rebuilt directory.
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

package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/websocket"
)

// bidi is a WebDriver BiDi session with Firefox over its WebSocket: just
// the commands spawnbench sends (open and close a user context and a tab
// in it), their answers matched by id; events are not subscribed to.
type bidi struct {
	ws *websocket.Conn
	// local is the connection's own address, as the remote agent logs
	// its peer (onlyClient).
	local string

	mu      sync.Mutex
	next    int
	waiting map[int]chan bidiAnswer
	// gone is closed when the connection has ended.
	gone chan struct{}
}

// bidiAnswer is one answer of the remote end.
type bidiAnswer struct {
	ID      int             `json:"id"`
	Type    string          `json:"type"` // "success", "error" or "event"
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
}

// dialFunc connects to a TCP address: on the machine's loopback
// (dialHere), or in spawnbench's network namespace (privateNet.dial).
type dialFunc func(ctx context.Context, addr string) (net.Conn, error)

func dialHere(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// openBiDi makes a WebSocket connection to the remote end at url
// (ws://host:port), over a connection of dial, and returns it with its
// own address (which the WebSocket's LocalAddr is not: that is its
// Origin).
func openBiDi(ctx context.Context, url string, dial dialFunc) (*websocket.Conn, string, error) {
	// Firefox refuses a WebSocket whose Origin it was not told to allow
	// (--remote-allow-origins), and this client always sends one.
	cfg, err := websocket.NewConfig(url+"/session", bidiOrigin)
	if err != nil {
		return nil, "", fmt.Errorf("WebDriver BiDi at %s: %w", url, err)
	}
	conn, err := dial(ctx, strings.TrimPrefix(url, "ws://"))
	if err != nil {
		return nil, "", fmt.Errorf("connect to WebDriver BiDi at %s: %w", url, err)
	}
	// The handshake ends with ctx.
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	ws, err := websocket.NewClient(cfg, conn)
	if !stop() || err != nil {
		conn.Close()
		if err == nil {
			err = ctx.Err()
		}
		return nil, "", fmt.Errorf("connect to WebDriver BiDi at %s: %w", url, err)
	}
	_ = conn.SetDeadline(time.Time{})
	return ws, conn.LocalAddr().String(), nil
}

// dialBiDi connects to the remote end at url (ws://host:port) and starts
// a session.
func dialBiDi(ctx context.Context, url string, dial dialFunc) (*bidi, error) {
	ws, local, err := openBiDi(ctx, url, dial)
	if err != nil {
		return nil, err
	}
	c := &bidi{ws: ws, local: local, waiting: map[int]chan bidiAnswer{}, gone: make(chan struct{})}
	go c.read()
	if err := c.call(ctx, "session.new", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
		ws.Close()
		<-c.gone
		return nil, fmt.Errorf("%w (spawnbench's connection was from %s)", err, local)
	}
	return c, nil
}

// touchBiDi makes a WebSocket connection to the remote end at url and
// closes it at once, and returns its own address.
func touchBiDi(ctx context.Context, url string, dial dialFunc) (string, error) {
	ws, local, err := openBiDi(ctx, url, dial)
	if err != nil {
		return "", err
	}
	ws.Close()
	return local, nil
}

// bidiOrigin is the Origin spawnbench's WebSocket sends.
const bidiOrigin = "http://127.0.0.1"

// read hands each answer to its caller until the connection ends.
func (c *bidi) read() {
	defer close(c.gone)
	for {
		var msg []byte
		if err := websocket.Message.Receive(c.ws, &msg); err != nil {
			return
		}
		var a bidiAnswer
		if json.Unmarshal(msg, &a) != nil || a.Type == "event" {
			continue
		}
		c.mu.Lock()
		ch := c.waiting[a.ID]
		delete(c.waiting, a.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- a
		}
	}
}

// call sends method with params and decodes its result into result (nil:
// none wanted).
func (c *bidi) call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan bidiAnswer, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, id)
		c.mu.Unlock()
	}()
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := websocket.Message.Send(c.ws, string(msg)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case a := <-ch:
		if a.Type == "error" {
			return &bidiError{Method: method, Code: a.Error, Message: a.Message}
		}
		if result != nil {
			if err := json.Unmarshal(a.Result, result); err != nil {
				return fmt.Errorf("%s: read the answer: %w", method, err)
			}
		}
		return nil
	case <-c.gone:
		return fmt.Errorf("%s: %w", method, errLost)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// bidiError is the remote end's error answer to a command.
type bidiError struct {
	Method, Code, Message string
}

func (e *bidiError) Error() string { return e.Method + ": " + e.Code + ": " + e.Message }

// close ends the connection.
func (c *bidi) close() error {
	err := c.ws.Close()
	<-c.gone
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"spawnbench/internal/reexec"

	"golang.org/x/sys/unix"
)

// A warm Firefox is driven over WebDriver BiDi, which Firefox serves on a
// TCP port only (it has no pipe mode, as Chromium has), and every page
// reports to a page server on a TCP port: on the machine's loopback any
// local user could connect to both. So, where the kernel allows it, a
// warm Firefox and its pages' servers live in a network namespace of
// spawnbench's own, whose loopback nothing else on the machine shares
// (privateNet). Where it does not, they stay on the machine's loopback,
// and the session check (firefox.go) and the pages' secrets (server.go)
// are what keep other users out.
//
// spawnbench cannot itself enter a network namespace made by an ordinary
// user: that needs the namespace's user namespace, which no multithreaded
// process may join. So a small holder process (spawnbench itself, started
// into the new namespaces) lives there, makes the sockets spawnbench asks
// for and hands them over a socketpair; a socket stays in the namespace
// it was made in. Firefox is started into the namespaces by nsenter,
// given the holder's namespaces as open files (never by a pid another
// process could take).

// Isolation kinds, as provenance records them (results.Invocation's
// BrowserIsolation).
const (
	// IsolationNetNS: the warm Firefox and its page servers in a network
	// namespace of the run's own.
	IsolationNetNS = "netns"
	// IsolationSessionCheck: on the machine's loopback, open to other
	// local users; a browser someone else connected to first is refused.
	IsolationSessionCheck = "session-check"
)

// Isolation says what keeps other local users out of the run's browsers
// (IsolationNetNS or IsolationSessionCheck) and, in a sentence, how and,
// where no namespace could be made, why not. It makes the namespace if
// none is made yet.
func Isolation() (kind, detail string) {
	const always = "; Chromium is driven over a pipe, and every page server refuses (403, counted in refused_requests) any request without its page's secret"
	n, err := ownNet()
	if err != nil {
		return IsolationSessionCheck, "the warm Firefox's remote agent and the page servers are on the machine's loopback, which other local users can reach (" + err.Error() + "); a Firefox whose remote agent took any connection but spawnbench's before spawnbench's session is refused" + always
	}
	return IsolationNetNS, n.detail + "; a Firefox whose remote agent took any connection but spawnbench's before spawnbench's session is refused" + always
}

// privateNet is the holder of spawnbench's network namespace.
type privateNet struct {
	mu   sync.Mutex
	conn *net.UnixConn
	// ns are the holder's namespaces, open, handed to Firefox's nsenter
	// as descriptors 3, 4, ...; enter is nsenter's command line up to
	// the browser's.
	ns    []*os.File
	enter []string
	// detail says what the namespace is, for provenance.
	detail string
}

// forceLoopback is set by tests to check the session check where a
// namespace could be made.
var forceLoopback bool

var theNet struct {
	once sync.Once
	n    *privateNet
	err  error
}

// ownNet is spawnbench's network namespace, made on first use, or why
// there is none.
func ownNet() (*privateNet, error) {
	if forceLoopback {
		return nil, errors.New("disabled by a test")
	}
	theNet.once.Do(func() { theNet.n, theNet.err = startPrivateNet() })
	return theNet.n, theNet.err
}

// holderRole is the helper role (see reexec) of the holder of a network
// namespace (holdNet).
const holderRole = "netns-holder"

func init() { reexec.Register(holderRole, holdNet) }

// startPrivateNet starts the holder in a new network namespace: a plain
// one where spawnbench may make it (root), else one inside a new user
// namespace that maps spawnbench's own user and group to themselves.
func startPrivateNet() (*privateNet, error) {
	nsenter, err := exec.LookPath("nsenter")
	if err != nil {
		return nil, fmt.Errorf("no nsenter to start a browser in a namespace: %w", err)
	}
	n, plainErr := startHolder(nsenter, false)
	if plainErr == nil {
		return n, nil
	}
	n, userErr := startHolder(nsenter, true)
	if userErr == nil {
		return n, nil
	}
	return nil, fmt.Errorf("no network namespace of its own: %v; nor in a user namespace: %v", plainErr, userErr)
}

// startHolder starts one holder and waits until its loopback is up.
func startHolder(nsenter string, inUserNS bool) (*privateNet, error) {
	// Its own process group: a Ctrl-C is spawnbench's. It ends when
	// spawnbench does: its end of the socketpair then reads the end.
	attr := &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_NEWNET}
	if inUserNS {
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		// To bring its loopback up, in its own namespace only.
		attr.AmbientCaps = []uintptr{unix.CAP_NET_ADMIN}
	}
	cmd, conn, err := reexec.StartWithSocket(holderRole, attr)
	if err != nil {
		return nil, err
	}
	n := &privateNet{conn: conn}
	fail := func(err error) (*privateNet, error) {
		conn.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		for _, f := range n.ns {
			f.Close()
		}
		return nil, err
	}
	if _, err := n.ask("ready", ""); err != nil {
		return fail(err)
	}
	// The holder is a child not yet waited for, so its pid is its own.
	kinds := []string{"net"}
	n.enter = []string{nsenter}
	if inUserNS {
		kinds = []string{"user", "net"}
	}
	for i, kind := range kinds {
		f, err := os.Open("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/ns/" + kind)
		if err != nil {
			return fail(fmt.Errorf("open the holder's namespace: %w", err))
		}
		n.ns = append(n.ns, f)
		n.enter = append(n.enter, "--"+kind+"=/proc/self/fd/"+strconv.Itoa(3+i))
	}
	if inUserNS {
		// Firefox stays spawnbench's own user: the namespace maps no other.
		n.enter = append(n.enter, "--preserve-credentials")
		n.detail = "the warm Firefox and its page servers in a user and network namespace of spawnbench's own (an ordinary user's), whose loopback no other process on the machine can reach"
	} else {
		n.detail = "the warm Firefox and its page servers in a network namespace of spawnbench's own, whose loopback no other process on the machine can reach"
	}
	n.enter = append(n.enter, "--")
	// A system may let a namespace be made but not entered (a seccomp
	// filter on setns): then no browser could start in it.
	probe := exec.Command(n.enter[0], append(slices.Clone(n.enter[1:]), "/bin/true")...)
	probe.ExtraFiles = n.ns
	if out, err := probe.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("nsenter cannot enter it: %v: %s", err, bytes.TrimSpace(out)))
	}
	go func() { _ = cmd.Wait() }()
	return n, nil
}

// holderTimeout bounds one request to the holder: it only makes a socket
// on its loopback.
const holderTimeout = 30 * time.Second

// ask sends the holder one request, verb and address, and returns the
// socket it made (nil for "ready").
func (n *privateNet) ask(verb, addr string) (*os.File, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	_ = n.conn.SetDeadline(time.Now().Add(holderTimeout))
	if _, err := n.conn.Write([]byte(verb + " " + addr)); err != nil {
		return nil, fmt.Errorf("ask the network namespace's holder: %w", err)
	}
	buf, oob := make([]byte, 4096), make([]byte, unix.CmsgSpace(4))
	nb, noob, _, _, err := n.conn.ReadMsgUnix(buf, oob)
	if err == nil && nb == 0 {
		err = errors.New("it has ended")
	}
	if err != nil {
		return nil, fmt.Errorf("the network namespace's holder: %w", err)
	}
	var fd = -1
	if msgs, perr := unix.ParseSocketControlMessage(oob[:noob]); perr == nil && len(msgs) == 1 {
		if fds, perr := unix.ParseUnixRights(&msgs[0]); perr == nil && len(fds) == 1 {
			fd = fds[0]
			unix.CloseOnExec(fd)
		}
	}
	answer := string(buf[:nb])
	if answer != "ok" {
		if fd >= 0 {
			unix.Close(fd)
		}
		return nil, errors.New(answer)
	}
	if fd < 0 {
		return nil, nil
	}
	return os.NewFile(uintptr(fd), verb+" "+addr), nil
}

// listen is net.Listen("tcp", addr), in the namespace.
func (n *privateNet) listen(addr string) (net.Listener, error) {
	f, err := n.ask("listen", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	defer f.Close()
	return net.FileListener(f)
}

// dial connects to addr (TCP) in the namespace.
func (n *privateNet) dial(_ context.Context, addr string) (net.Conn, error) {
	f, err := n.ask("dial", addr)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	defer f.Close()
	return net.FileConn(f)
}

// holdNet is the holder's whole life: bring its loopback up, say so, then
// make each socket asked for, until spawnbench's end of the socket closes.
func holdNet() int {
	conn, err := reexec.Socket()
	if err != nil {
		return 1
	}
	ready := false
	buf := make([]byte, 4096)
	for {
		nb, err := conn.Read(buf)
		if err != nil || nb == 0 {
			return 0
		}
		verb, addr, _ := strings.Cut(string(buf[:nb]), " ")
		var sock *os.File
		switch {
		case verb == "ready":
			err = loopbackUp()
			ready = err == nil
		case !ready:
			err = errors.New("its loopback is not up")
		case verb == "listen":
			sock, err = listenFile(addr)
		case verb == "dial":
			sock, err = dialFile(addr)
		default:
			err = fmt.Errorf("no such request %q", verb)
		}
		answer, rights := "ok", []byte(nil)
		if err != nil {
			answer = err.Error()
		} else if sock != nil {
			rights = unix.UnixRights(int(sock.Fd()))
		}
		_, _, werr := conn.WriteMsgUnix([]byte(answer), rights, nil)
		if sock != nil {
			sock.Close()
		}
		if werr != nil {
			return 1
		}
	}
}

// loopbackUp brings up the namespace's loopback device: a new network
// namespace's is down, and up it carries 127.0.0.0/8.
func loopbackUp() error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bring up the loopback: %w", err)
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up the loopback: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up the loopback: %w", err)
	}
	return nil
}

func listenFile(addr string) (*os.File, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	return ln.(*net.TCPListener).File()
}

func dialFile(addr string) (*os.File, error) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.(*net.TCPConn).File()
}

package proc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"spawnbench/internal/reexec"

	"golang.org/x/sys/unix"
)

// Containment is the boundary every process a benchmark starts stays in,
// whatever it does to its environment, session or parent.
//
// Where the kernel lets spawnbench make a cgroup v2 (as root, or in a
// delegated subtree), each process tree is started straight into a fresh
// cgroup of its own (clone3's CLONE_INTO_CGROUP, so not even its first
// instruction runs outside), and the tree is killed with cgroup.kill: no
// process can leave a cgroup by forking, setsid or clearing its
// environment. A small keeper process of spawnbench's own, started once,
// waits on a pipe whose only writer is spawnbench: when spawnbench ends in
// any way, SIGKILL included, the pipe ends, and the keeper kills every
// tree cgroup left and removes it, and runs the hooks other packages
// registered (OnOwnerGone) to remove what else the spawnbench that died
// left. The next spawnbench also removes what a dead one left (a keeper
// killed with it).
//
// Where no cgroup can be made (an ordinary user, unless spawnbench runs
// in a cgroup delegated to that user, as systemd's user manager gives
// one: see delegationHint; this is detected, not tested, on machines
// without systemd), each tree is started under a guardian of its own (guardian.go): a
// child subreaper that every orphan of the tree falls to, whatever it did
// to its environment or session, that reaps and kills them all, and that
// outlives spawnbench to kill its tree when spawnbench dies. Both hold the
// same: no process of a tree outlives it.
//
// The keeper also kills, when spawnbench dies, every process carrying one
// of its tree tokens (tree.go), and the next spawnbench kills those of
// spawnbenches that are gone: what is left only if a guardian was killed
// with its spawnbench.
//
// ContainSubreaper names what sets before issue 33 recorded without a
// cgroup: spawnbench itself as the subreaper, finding trees by parent
// links and tokens, which a descendant that cleared its environment and
// was orphaned before a walk saw it could escape.
const (
	ContainCgroup    = "cgroup"
	ContainGuardian  = "guardian"
	ContainSubreaper = "subreaper"
)

// The helper roles of containment, played by a fresh copy of spawnbench
// (see reexec): the keeper, and a probe that exits at once.
const (
	keeperRole = "containment-keeper"
	probeRole  = "cgroup-probe"
)

// keeperVar, in the keeper's environment, names the spawnbench it keeps
// by owner (see Owner), and keeperCgroupVar that spawnbench's cgroup, if
// it has one.
const (
	keeperVar       = "SPAWNBENCH_KEEPER"
	keeperCgroupVar = "SPAWNBENCH_KEEPER_CGROUP"
)

func init() {
	reexec.Register(probeRole, func() int { return 0 })
	reexec.Register(guardianRole, guard)
	reexec.Register(keeperRole, func() int {
		keep(os.Getenv(keeperVar), os.Getenv(keeperCgroupVar))
		return 0
	})
}

// containment is this spawnbench's boundary, set up on first use.
var containment struct {
	once   sync.Once
	kind   string
	detail string
	base   string   // this spawnbench's cgroup: <its own cgroup>/spawnbench-<pid>-<start>
	keeper *os.File // the write end of the keeper's pipe, held for life
	seq    atomic.Int64
}

// forceGuardian is set by tests to check the guardians where a cgroup
// could be made.
var forceGuardian bool

// Containment says which boundary this spawnbench's benchmark trees are
// held in (ContainCgroup or ContainGuardian) and, in a sentence, how,
// where, and why not in a cgroup.
func Containment() (kind, detail string) {
	setupContainment()
	return containment.kind, containment.detail
}

func setupContainment() {
	containment.once.Do(func() {
		// What spawnbenches that are gone left running.
		killTokens(OwnerGone)
		base, err := makeBase()
		if err == nil {
			if err = probeCgroup(base); err != nil {
				os.Remove(base)
				err = fmt.Errorf("cannot start a process into a cgroup: %w", err)
			}
		}
		why := ""
		if err != nil {
			why, base = "no cgroup v2 to be made: "+err.Error()+delegationHint(), ""
		}
		w, err := startKeeper(base)
		if err != nil && base != "" {
			// Without the keeper, a cgroup would outlive a SIGKILL.
			os.Remove(base)
			why, base = "no keeper for a cgroup: "+err.Error(), ""
		}
		containment.keeper = w
		if base != "" {
			containment.kind, containment.base = ContainCgroup, base
			containment.detail = "a cgroup v2 of its own for each tree, in " + base + ", started into it (CLONE_INTO_CGROUP) and killed with cgroup.kill; a keeper removes what a killed spawnbench leaves"
			return
		}
		containment.kind = ContainGuardian
		containment.detail = "a guardian process for each tree, its child subreaper: every descendant, whatever its environment or session, is reaped and killed by it, also when spawnbench is SIGKILLed; " + why
		if err != nil {
			containment.detail += "; no keeper: " + err.Error()
		}
	})
}

// makeBase makes this spawnbench's cgroup below its own, first removing
// those of spawnbenches that are gone.
func makeBase() (string, error) {
	if forceGuardian {
		return "", errors.New("disabled by a test")
	}
	own, err := ownCgroupDir()
	if err != nil {
		return "", err
	}
	cleanStale(own)
	pid := os.Getpid()
	st, ok := readStat(pid)
	if !ok {
		return "", errors.New("cannot read /proc/self/stat")
	}
	base := filepath.Join(own, fmt.Sprintf("spawnbench-%d-%d", pid, st.start))
	if err := os.Mkdir(base, 0o755); err != nil {
		return "", err
	}
	return base, nil
}

// cgroup2Mount is where the cgroup v2 hierarchy is mounted.
func cgroup2Mount() (string, error) { return MountOf("cgroup2") }

// MountOf is where a file system of type fstype (cgroup2, tracefs) is
// mounted, from this process's mountinfo: the first such mount.
func MountOf(fstype string) (string, error) {
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(info), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if ok && len(f) >= 5 && len(g) >= 1 && g[0] == fstype {
			return f[4], nil
		}
	}
	return "", fmt.Errorf("no %s file system is mounted", fstype)
}

// delegationHint says how to have cgroups where systemd's user manager
// delegates a cgroup subtree to this user (user@UID.service) but
// spawnbench runs outside it: a process may only move, or be started,
// into a cgroup whose common ancestor with its own is writable by it, so
// only the manager can place spawnbench there. "" when there is none.
func delegationHint() string {
	uid := os.Getuid()
	mount, err := cgroup2Mount()
	if uid == 0 || err != nil {
		return ""
	}
	dir := filepath.Join(mount, "user.slice", fmt.Sprintf("user-%d.slice", uid), fmt.Sprintf("user@%d.service", uid))
	if unix.Access(dir, unix.W_OK) != nil {
		return ""
	}
	return fmt.Sprintf(" (systemd's user manager delegates %s to this user, but spawnbench runs outside it: start it with `systemd-run --user --scope spawnbench ...` to hold trees in cgroups)", dir)
}

// ownCgroupDir is the directory of spawnbench's cgroup in the cgroup v2
// hierarchy: the cgroup2 mount plus the "0::" path of /proc/self/cgroup.
// It is writable by an ordinary user only in a delegated subtree (a
// systemd user service, or a scope that systemd-run --user made).
func ownCgroupDir() (string, error) {
	mount, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(self), "\n") {
		if path, ok := strings.CutPrefix(line, "0::"); ok {
			dir := filepath.Join(mount, path)
			if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
				return "", err
			}
			return dir, nil
		}
	}
	return "", errors.New("/proc/self/cgroup names no cgroup v2")
}

// cleanStale kills and removes the cgroups of spawnbenches that are
// gone: only a keeper killed with its spawnbench leaves them.
func cleanStale(own string) {
	entries, _ := os.ReadDir(own)
	for _, e := range entries {
		pid, start, ok := parseOwner(e.Name(), "spawnbench-")
		if !ok || ownerAlive(pid, start) {
			continue
		}
		dir := filepath.Join(own, e.Name())
		_ = killCgroups(dir)
		os.Remove(dir)
	}
}

// parseOwner reads "<prefix><pid>-<start>" (and whatever follows a
// further "-" or ".").
func parseOwner(name, prefix string) (pid int, start uint64, ok bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, 0, false
	}
	f := strings.SplitN(rest, "-", 3)
	if len(f) < 2 {
		return 0, 0, false
	}
	f[1], _, _ = strings.Cut(f[1], ".")
	p, err1 := strconv.Atoi(f[0])
	s, err2 := strconv.ParseUint(f[1], 10, 64)
	return p, s, err1 == nil && err2 == nil
}

// ownerAlive says whether the process pid that started at start still runs.
func ownerAlive(pid int, start uint64) bool {
	st, ok := readStat(pid)
	return ok && st.start == start && !st.zombie
}

// Owner is what names spawnbench's trees, temporary files and cgroups, so
// that its keeper and the next spawnbench can tell those of a dead one:
// "<pid>-<start time>".
var Owner = sync.OnceValue(func() string {
	st, _ := readStat(os.Getpid())
	return strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(st.start, 10)
})

// OwnerGone says whether the spawnbench owner names (see Owner) is gone;
// a name that is not an owner's is not.
func OwnerGone(owner string) bool {
	pid, start, ok := parseOwner(owner, "")
	return ok && !ownerAlive(pid, start)
}

// killTokens kills every process whose tree token (treeVar) names an
// owner that gone says is gone.
func killTokens(gone func(owner string) bool) {
	stats, err := readStats()
	if err != nil {
		return
	}
	self := os.Getpid()
	prefix := []byte(treeVar + "=")
	for pid, st := range stats {
		if pid == self || st.zombie {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			token, ok := bytes.CutPrefix(kv, prefix)
			if !ok {
				continue
			}
			owner, _, _ := strings.Cut(string(token), ".")
			if gone(owner) {
				if fd, err := unix.PidfdOpen(pid, 0); err == nil {
					// The pidfd is the process seen, not a successor.
					if again, ok := readStat(pid); ok && again.start == st.start {
						_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
					}
					unix.Close(fd)
				}
			}
			break
		}
	}
}

// ownerGoneHooks are what OnOwnerGone registered.
var ownerGoneHooks []func(owner string)

// OnOwnerGone registers clean, which removes what the spawnbench owner
// (see Owner) left outside its process trees (a browser's temporary
// profiles, say): its keeper calls each once that spawnbench is gone,
// SIGKILL included. Call it from an init function, so that the keeper,
// a fresh copy of the binary, has it too.
func OnOwnerGone(clean func(owner string)) {
	ownerGoneHooks = append(ownerGoneHooks, clean)
}

// probeCgroup starts a process that exits at once into a fresh cgroup,
// to learn whether the kernel can (clone3 with CLONE_INTO_CGROUP).
func probeCgroup(base string) error {
	b, err := newBox(base, "probe")
	if err != nil {
		return err
	}
	defer b.remove()
	cmd, err := reexec.Command(probeRole)
	if err != nil {
		return err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: b.fd}
	return cmd.Run()
}

// startKeeper starts spawnbench's keeper (see keep), of its cgroup base
// if it has one, and returns the pipe whose end tells it that spawnbench
// is gone.
func startKeeper(base string) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd, err := reexec.Command(keeperRole)
	if err != nil {
		w.Close()
		return nil, err
	}
	cmd.Env = append(cmd.Env, keeperVar+"="+Owner(), keeperCgroupVar+"="+base)
	cmd.Stdin = r
	// Its own process group: a Ctrl-C at the terminal is spawnbench's to
	// handle, and must not take the keeper first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, err
	}
	go func() { _ = cmd.Wait() }()
	return w, nil
}

// keep is the keeper's whole life: wait until the spawnbench owner is
// gone (its end of the pipe on standard input closes), then kill every
// cgroup left in its cgroup dir (if it has one) and remove them and dir,
// kill every process carrying one of its tokens, and run the OnOwnerGone
// hooks.
func keep(owner, dir string) {
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT)
	_, _ = io.Copy(io.Discard, os.Stdin)
	if dir != "" {
		_ = killCgroups(dir)
		os.Remove(dir)
	}
	killTokens(func(o string) bool { return o == owner })
	for _, clean := range ownerGoneHooks {
		clean(owner)
	}
}

// killCgroups kills and removes every cgroup in dir.
func killCgroups(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if e.IsDir() {
			b := &box{dir: filepath.Join(dir, e.Name()), fd: -1}
			errs = append(errs, b.kill(killLimit), b.remove())
		}
	}
	return errors.Join(errs...)
}

// box is one process tree's cgroup.
type box struct {
	dir string
	fd  int // an O_DIRECTORY descriptor for CLONE_INTO_CGROUP; -1 when closed
}

// newBox makes a fresh cgroup in base.
func newBox(base, name string) (*box, error) {
	dir := filepath.Join(base, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make cgroup: %w", err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("open cgroup %s: %w", dir, err)
	}
	return &box{dir: dir, fd: fd}, nil
}

// treeBox makes the cgroup for a new tree, or returns nil when trees are
// held by guardians.
func treeBox() *box {
	setupContainment()
	if containment.kind != ContainCgroup {
		return nil
	}
	b, err := newBox(containment.base, "t"+strconv.FormatInt(containment.seq.Add(1), 10))
	if err != nil {
		return nil
	}
	return b
}

// pids lists the processes in the cgroup (zombies are not).
func (b *box) pids() []int {
	data, err := os.ReadFile(filepath.Join(b.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if pid, err := strconv.Atoi(sc.Text()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// kill kills every process in the cgroup, with cgroup.kill where the
// kernel has it (5.14) and one by one otherwise, and waits until the
// cgroup is empty.
func (b *box) kill(limit time.Duration) error {
	viaFile := os.WriteFile(filepath.Join(b.dir, "cgroup.kill"), []byte("1"), 0) == nil
	deadline := time.Now().Add(limit)
	for pause := 100 * time.Microsecond; ; pause = min(2*pause, 20*time.Millisecond) {
		left := b.pids()
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d processes still in cgroup %s after %s of SIGKILL", len(left), b.dir, limit)
		}
		if !viaFile {
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(pause)
	}
}

// remove closes the cgroup and removes it; it must be empty.
func (b *box) remove() error {
	if b.fd >= 0 {
		unix.Close(b.fd)
		b.fd = -1
	}
	var err error
	for range 50 {
		// A process that just left may still be counted for a moment.
		if err = unix.Rmdir(b.dir); err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("remove cgroup %s: %w", b.dir, err)
}

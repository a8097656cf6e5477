/*
 * chost.c: the spawn path of the host, in C over Wasmtime's C API, so a
 * spawn never crosses into Go: thread-spawn and clock_time_get are C host
 * functions, a thread is a pthread, and its Store and instance come from
 * one InstancePre whose imports were resolved once.
 */
#define _GNU_SOURCE
#include "chost.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capi.h"

/* TRAP_EXIT_CODE is 128 + SIGABRT, as the Wasmtime CLI exits on a trap. */
#define TRAP_EXIT_CODE 134
/* HOST_ERROR_EXIT_CODE is the Wasmtime CLI's exit code for an error that
 * is not a wasm trap, such as a WASI call given a misaligned pointer. */
#define HOST_ERROR_EXIT_CODE 1
/* THREAD_STACK_SIZE is a spawned thread's native stack: 2 MiB, the
 * default of a Rust std::thread, on which the Wasmtime CLI runs each
 * wasi-threads thread. It holds Wasmtime's default 512 KiB wasm stack
 * limit and the host's frames; and glibc's stack cache (40 MiB) keeps
 * twenty of them for reuse, where 8 MiB stacks (the default) fit five. */
#define THREAD_STACK_SIZE (2u << 20)
/* SIGNAL_STACK_SIZE is the alternate signal stack the host installs on
 * each of its threads before Wasmtime first runs there. Wasmtime keeps an
 * existing alternate stack of at least its minimum instead of mapping,
 * guarding and unmapping one of its own per thread: three memory-map
 * changes per spawn, each taking the process's memory-map lock. */
#define SIGNAL_STACK_SIZE (512u << 10)
/* MAX_TID is the largest thread id the wasi-threads ABI allows. */
#define MAX_TID 0x1FFFFFFF

typedef struct thread_instance {
  wasmtime_store_t *store;
  wasmtime_context_t *ctx;
  wasmtime_instance_t instance;
  /* poll_func is Wasmtime's poll_oneoff as the trampoline module of this
   * Store exports it, made at the thread's first poll that the host does
   * not serve itself. */
  int has_poll_func;
  wasmtime_func_t poll_func;
} thread_instance;

typedef struct job {
  int32_t tid, arg;
  thread_instance *ready; /* made by the parent, or NULL */
  /* Trace timestamps (CLOCK_MONOTONIC ns), kept when tracing: the spawn
   * call's entry and return in the parent. */
  uint64_t spawn_entered, spawn_returned;
} job;

/* With tracing on (`spawnbench wasmtime --trace`), each thread reports on
 * stderr where its spawn's time went; the first clock reading a thread
 * takes is recorded through this thread-local. */
static __thread uint64_t *trace_first_clock;
/* trace_store_ready is when this thread's Store and WASI context were
 * ready, before instantiation; trace_running and trace_instantiated when
 * its job began and its instance was ready (tracing or phases only). */
static __thread uint64_t trace_store_ready, trace_running, trace_instantiated;

/* Placement (opts.placement): where each thread's parent and the thread
 * itself ran, noted in clock_time_get after the clock was read, so neither
 * note is inside a reading the guest takes: the child's at its first
 * monotonic read, the parent's at its first monotonic read after
 * thread-spawn returned (the benchmarks' "created" reading). A note is the
 * CPU + 1 (0: none yet), in chunks of PLACEMENT_CHUNK threads allocated at
 * their first note. With opts.phases a thread's phases' ends
 * (sbh_phases) are noted at the same moment, for the same reason (no
 * chunk's allocation inside a measured spawn), in a table of their own,
 * so that placement alone allocates what it always did. */
#define PLACEMENT_CHUNK 4096
typedef struct placement {
  atomic_int parent, child;
} placement;
typedef struct thread_phases {
  _Atomic uint64_t end[SBH_PHASES];
} thread_phases;

/* note_parent_tid is the thread this thread spawned last, whose parent
 * CPU the next clock read notes; note_child_tid is this thread's own id
 * until its first clock read. 0: nothing to note. */
static __thread int note_parent_tid, note_child_tid;

/* spin_hint tells the CPU that this is a busy-wait loop, on every
 * architecture the host builds for. */
static inline void spin_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#else
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A worker is an OS thread that, with reuse, waits for the next spawn
 * after its wasm thread ends. */
typedef struct worker {
  sbh_host *h;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_int has_job; /* set under mu; read without it while spinning */
  job job;
  struct worker *next_idle;
} worker;

struct sbh_host {
  sbh_options opts;
  wasm_engine_t *engine;
  wasmtime_module_t *module;
  wasmtime_linker_t *linker;
  wasmtime_instance_pre_t *pre;
  wasmtime_store_t *def_store; /* owns the linker's definitions' store side */
  wasmtime_sharedmemory_t *memory0;
  uint8_t *memory0_base;

  const char **argv;
  size_t argc;
  const char **env_names, **env_values;
  size_t envc;

  atomic_int next_tid;
  /* live counts spawned threads from thread-spawn until their Store is
   * deleted, which is when a pooling slot comes free. limit bounds it (0:
   * no bound); slot_mu and slot_cv let a spawn at the limit wait briefly
   * for a thread that is returning: a guest's join returns as soon as the
   * child marks itself done, a moment before its Store is gone. */
  atomic_int live;
  int limit;
  pthread_mutex_t slot_mu;
  pthread_cond_t slot_cv;
  /* wasi_linker holds Wasmtime's own WASI functions, unshadowed, for the
   * poll_oneoff calls the host does not serve itself. They reach guest
   * memory through their caller's "memory" export, so the host calls them
   * through tramp_pre, a small module that imports memory 0 and
   * poll_oneoff and exports both. */
  wasmtime_linker_t *wasi_linker;
  wasmtime_instance_pre_t *tramp_pre;

  pthread_mutex_t idle_mu;
  worker *idle;

  /* exit_decided is claimed by the first thread to end the program; it
   * then reports why and sets exit_ready, which sbh_run waits for. */
  pthread_mutex_t exit_mu;
  pthread_cond_t exit_cv;
  int exit_decided, exit_ready, exit_code;

  /* signal_stacks are alternate signal stacks of ended threads, kept for
   * the next ones (a list through each stack's first word). */
  pthread_mutex_t sigstack_mu;
  void *signal_stacks;

  /* placements and phases have MAX_TID / PLACEMENT_CHUNK + 1 chunk
   * pointers each, of placement and thread_phases records (with
   * opts.placement and opts.phases only). */
  _Atomic(char *) *placements, *phases;

  /* warm_module has one empty exported function, "f"; prestarted workers
   * run it once. warm_workers counts those ready (under idle_mu). */
  wasmtime_module_t *warm_module;
  pthread_cond_t warm_cv;
  int warm_workers;
};

static char *format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0)
    s = NULL;
  va_end(ap);
  return s;
}

/* error_text takes an error's message and frees the error. */
static char *error_text(wasmtime_error_t *e) {
  wasm_byte_vec_t m;
  wasmtime_error_message(e, &m);
  char *s = format("%.*s", (int)m.size, m.data);
  wasm_byte_vec_delete(&m);
  wasmtime_error_delete(e);
  return s;
}

static char *trap_text(wasm_trap_t *t) {
  wasm_byte_vec_t m;
  wasm_trap_message(t, &m);
  /* The message is NUL-terminated and its size counts the NUL. */
  int n = (int)m.size;
  if (n > 0 && m.data[n - 1] == 0)
    n--;
  char *s = format("%.*s", n, m.data);
  wasm_byte_vec_delete(&m);
  wasm_trap_delete(t);
  return s;
}

/* claim_exit makes this thread the one that ends the program, if no other
 * thread already is. The winner reports why, then calls publish_exit: the
 * decision is taken before any message is formatted, so a proc_exit or a
 * return from _start on another thread cannot overtake a trap that
 * happened first. */
static int claim_exit(sbh_host *h) {
  pthread_mutex_lock(&h->exit_mu);
  int won = !h->exit_decided;
  h->exit_decided = 1;
  pthread_mutex_unlock(&h->exit_mu);
  return won;
}

static void publish_exit(sbh_host *h, int code) {
  pthread_mutex_lock(&h->exit_mu);
  h->exit_code = code;
  h->exit_ready = 1;
  pthread_cond_signal(&h->exit_cv);
  pthread_mutex_unlock(&h->exit_mu);
}

static void decide_exit(sbh_host *h, int code) {
  if (claim_exit(h))
    publish_exit(h, code);
}

/* fail ends the program for what a thread's call returned: proc_exit's
 * code, or a report of anything else. As the Wasmtime CLI does, a wasm
 * trap exits 134 and an error raised by a host function (a WASI call's
 * bad pointer, say) exits 1. */
static void fail(sbh_host *h, const char *where, wasmtime_error_t *err, wasm_trap_t *trap) {
  int status;
  if (err && wasmtime_error_exit_status(err, &status)) {
    wasmtime_error_delete(err);
    decide_exit(h, status);
    return;
  }
  if (!claim_exit(h)) {
    if (err)
      wasmtime_error_delete(err);
    if (trap)
      wasm_trap_delete(trap);
    return;
  }
  wasmtime_trap_code_t code;
  int exit_code = trap && wasmtime_trap_code(trap, &code) ? TRAP_EXIT_CODE : HOST_ERROR_EXIT_CODE;
  char *msg = err ? error_text(err) : trap_text(trap);
  fprintf(stderr, "spawnbench wasmtime: %s: %s\n", where, msg ? msg : "(no message)");
  free(msg);
  publish_exit(h, exit_code);
}

/* host_error is what a host function returns for a guest's misuse that
 * Wasmtime's WASI reports as an error rather than an errno. */
static wasm_trap_t *host_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0)
    s = NULL;
  va_end(ap);
  wasm_trap_t *t = wasmtime_trap_new(s ? s : "host error", s ? strlen(s) : 10);
  free(s);
  return t;
}

/* SLOT_GRACE_NS is how long a spawn at the thread limit waits for a
 * thread that is ending to free its slot before it fails. */
#define SLOT_GRACE_NS 20000000

/* acquire_slot counts a new thread, or returns 0 when the limit holds
 * after the grace period. */
static int acquire_slot(sbh_host *h) {
  if (h->limit <= 0) {
    atomic_fetch_add(&h->live, 1);
    return 1;
  }
  int got = 0;
  pthread_mutex_lock(&h->slot_mu);
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_nsec += SLOT_GRACE_NS;
  if (deadline.tv_nsec >= 1000000000) {
    deadline.tv_sec++;
    deadline.tv_nsec -= 1000000000;
  }
  for (;;) {
    if (atomic_load(&h->live) < h->limit) {
      atomic_fetch_add(&h->live, 1);
      got = 1;
      break;
    }
    if (pthread_cond_timedwait(&h->slot_cv, &h->slot_mu, &deadline) != 0)
      break;
  }
  pthread_mutex_unlock(&h->slot_mu);
  return got;
}

static void release_slot(sbh_host *h) {
  if (h->limit <= 0) {
    atomic_fetch_sub(&h->live, 1);
    return;
  }
  pthread_mutex_lock(&h->slot_mu);
  atomic_fetch_sub(&h->live, 1);
  pthread_cond_signal(&h->slot_cv);
  pthread_mutex_unlock(&h->slot_mu);
}

static thread_instance *instantiate(sbh_host *h, char **why) {
  wasi_config_t *wasi = wasi_config_new();
  wasi_config_set_argv(wasi, h->argc, h->argv);
  wasi_config_set_env(wasi, h->envc, h->env_names, h->env_values);
  wasi_config_inherit_stdin(wasi);
  wasi_config_inherit_stdout(wasi);
  wasi_config_inherit_stderr(wasi);
  thread_instance *t = calloc(1, sizeof *t);
  if (!t) {
    *why = format("out of memory");
    return NULL;
  }
  t->store = wasmtime_store_new(h->engine, t, NULL);
  t->ctx = wasmtime_store_context(t->store);
  wasmtime_error_t *err = wasmtime_context_set_wasi(t->ctx, wasi);
  if (h->opts.trace || h->opts.phases)
    trace_store_ready = now_ns();
  wasm_trap_t *trap = NULL;
  if (!err)
    err = wasmtime_instance_pre_instantiate(h->pre, t->ctx, &t->instance, &trap);
  if (err || trap) {
    *why = err ? error_text(err) : trap_text(trap);
    wasmtime_store_delete(t->store);
    free(t);
    return NULL;
  }
  return t;
}

static void release(thread_instance *t) {
  wasmtime_store_delete(t->store);
  free(t);
}

/* call runs an exported function with i32 arguments and no results. It
 * returns 0, or -1 having reported a missing export, or leaves Wasmtime's
 * error or trap for the caller, who ends the program with fail(). */
static int call(sbh_host *h, thread_instance *t, const char *name, int32_t *args, size_t nargs,
                const char *where, wasmtime_error_t **err, wasm_trap_t **trap) {
  wasmtime_extern_t f;
  if (!wasmtime_instance_export_get(t->ctx, &t->instance, name, strlen(name), &f) ||
      f.kind != WASMTIME_EXTERN_FUNC) {
    fprintf(stderr, "spawnbench wasmtime: %s: no exported function %s\n", where, name);
    decide_exit(h, TRAP_EXIT_CODE);
    return -1;
  }
  wasmtime_val_raw_t raw[2] = {{0}};
  for (size_t i = 0; i < nargs; i++)
    raw[i].i32 = args[i];
  *trap = NULL;
  *err = wasmtime_func_call_unchecked(t->ctx, &f.of.func, raw, nargs, trap);
  return 0;
}

static void run_job(sbh_host *h, job *j) {
  char where[32];
  snprintf(where, sizeof where, "thread %d", (int)j->tid);
  int timed = h->opts.trace || h->opts.phases;
  uint64_t running = timed ? now_ns() : 0, first_clock = 0;
  trace_first_clock = timed ? &first_clock : NULL;
  thread_instance *t = j->ready;
  trace_store_ready = running;
  if (!t) {
    char *why = NULL;
    t = instantiate(h, &why);
    if (!t) {
      fprintf(stderr, "spawnbench wasmtime: %s: instantiate: %s\n", where, why ? why : "");
      free(why);
      decide_exit(h, TRAP_EXIT_CODE);
      release_slot(h);
      return;
    }
  }
  uint64_t instantiated = timed ? now_ns() : 0;
  trace_instantiated = instantiated;
  trace_running = running;
  int32_t args[2] = {j->tid, j->arg};
  wasmtime_error_t *err = NULL;
  wasm_trap_t *trap = NULL;
  note_child_tid = h->opts.placement || h->opts.phases ? j->tid : 0;
  int called = call(h, t, "wasi_thread_start", args, 2, where, &err, &trap);
  note_child_tid = 0;
  if (h->opts.trace)
    fprintf(stderr,
            "# trace thread %d (ns after thread-spawn was entered): spawn returned %lld, "
            "thread running %lld, store ready %lld, instantiated %lld, first clock read %lld\n",
            (int)j->tid, (long long)(j->spawn_returned - j->spawn_entered),
            (long long)(running - j->spawn_entered), (long long)(trace_store_ready - j->spawn_entered),
            (long long)(instantiated - j->spawn_entered),
            first_clock ? (long long)(first_clock - j->spawn_entered) : -1LL);
  trace_first_clock = NULL;
  /* After the trace: ending the program may end the process at once. */
  if (called == 0 && (err || trap))
    fail(h, where, err, trap);
  release(t);
  release_slot(h);
}

static void free_worker(worker *w);

/* warm_up pays, before any spawn, what a thread's first Store, WASI
 * context and wasm call cost in Wasmtime on a new OS thread (its signal
 * stack, thread-locals): tens of microseconds, measured with --trace. It
 * runs the host's own empty function, never guest code. */
static void warm_up(sbh_host *h) {
  wasi_config_t *wasi = wasi_config_new();
  wasi_config_inherit_stdout(wasi);
  wasmtime_store_t *store = wasmtime_store_new(h->engine, NULL, NULL);
  wasmtime_context_t *ctx = wasmtime_store_context(store);
  wasmtime_error_t *err = wasmtime_context_set_wasi(ctx, wasi);
  wasmtime_instance_t inst;
  wasm_trap_t *trap = NULL;
  if (!err)
    err = wasmtime_instance_new(ctx, h->warm_module, NULL, 0, &inst, &trap);
  wasmtime_extern_t f;
  if (!err && !trap && wasmtime_instance_export_get(ctx, &inst, "f", 1, &f) &&
      f.kind == WASMTIME_EXTERN_FUNC)
    err = wasmtime_func_call_unchecked(ctx, &f.of.func, NULL, 0, &trap);
  /* A failed warm-up only leaves the cost on the first spawn. */
  if (err)
    wasmtime_error_delete(err);
  if (trap)
    wasm_trap_delete(trap);
  wasmtime_store_delete(store);
}

/* spin_for_job polls for a job for up to opts.spin_ns before the worker
 * sleeps on its condition variable: a job that comes within that time
 * starts without a futex wake-up, whose scheduling latency (measured with
 * --trace: 5 to 40 microseconds on a busy 2-CPU machine) is most of a
 * reused thread's spawn. It is the idea of Go's spinning Ms. */
static void spin_for_job(sbh_host *h, worker *w) {
  if (h->opts.spin_ns <= 0 || atomic_load_explicit(&w->has_job, memory_order_acquire))
    return;
  uint64_t until = now_ns() + (uint64_t)h->opts.spin_ns;
  for (unsigned i = 1;; i++) {
    if (atomic_load_explicit(&w->has_job, memory_order_acquire))
      return;
    spin_hint();
    if (i % 64 == 0 && now_ns() >= until)
      return;
  }
}

/* install_signal_stack gives this thread an alternate signal stack from
 * the host's free list, mapping a new one only when the list is empty. It
 * returns the stack, or NULL (Wasmtime then maps its own). */
static void *install_signal_stack(sbh_host *h) {
  pthread_mutex_lock(&h->sigstack_mu);
  void *ss = h->signal_stacks;
  if (ss)
    h->signal_stacks = *(void **)ss;
  pthread_mutex_unlock(&h->sigstack_mu);
  if (!ss) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    /* A guard page below, as Wasmtime's own signal stacks have. */
    uint8_t *m = mmap(NULL, SIGNAL_STACK_SIZE + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      return NULL;
    if (mprotect(m, page, PROT_NONE) != 0) {
      munmap(m, SIGNAL_STACK_SIZE + page);
      return NULL;
    }
    ss = m + page;
  }
  stack_t st = {.ss_sp = ss, .ss_size = SIGNAL_STACK_SIZE, .ss_flags = 0};
  if (sigaltstack(&st, NULL) != 0) {
    pthread_mutex_lock(&h->sigstack_mu);
    *(void **)ss = h->signal_stacks;
    h->signal_stacks = ss;
    pthread_mutex_unlock(&h->sigstack_mu);
    return NULL;
  }
  return ss;
}

/* remove_signal_stack takes the stack off this thread, which runs no
 * more wasm, and keeps it for the next thread. */
static void remove_signal_stack(sbh_host *h, void *ss) {
  if (!ss)
    return;
  stack_t off = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
  if (sigaltstack(&off, NULL) != 0)
    return; /* still in use: leak it rather than share it */
  pthread_mutex_lock(&h->sigstack_mu);
  *(void **)ss = h->signal_stacks;
  h->signal_stacks = ss;
  pthread_mutex_unlock(&h->sigstack_mu);
}

static void *worker_main(void *p) {
  worker *w = p;
  sbh_host *h = w->h;
  void *signal_stack = install_signal_stack(h);
  if (!w->has_job) {
    /* Prestarted: warm up, then join the idle list. */
    warm_up(h);
    pthread_mutex_lock(&h->idle_mu);
    w->next_idle = h->idle;
    h->idle = w;
    h->warm_workers++;
    pthread_cond_signal(&h->warm_cv);
    pthread_mutex_unlock(&h->idle_mu);
  }
  for (;;) {
    spin_for_job(h, w);
    pthread_mutex_lock(&w->mu);
    while (!w->has_job)
      pthread_cond_wait(&w->cv, &w->mu);
    job j = w->job;
    w->has_job = 0;
    pthread_mutex_unlock(&w->mu);
    run_job(h, &j);
    if (h->opts.fresh_threads)
      break;
    pthread_mutex_lock(&h->idle_mu);
    w->next_idle = h->idle;
    h->idle = w;
    pthread_mutex_unlock(&h->idle_mu);
  }
  remove_signal_stack(h, signal_stack);
  free_worker(w);
  return NULL;
}

/* new_worker starts an OS thread for w; it runs w's job if it has one and,
 * with reuse, then waits in the idle list for the next. */
static int new_worker(worker *w) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, THREAD_STACK_SIZE);
  pthread_t th;
  int rc = pthread_create(&th, &attr, worker_main, w);
  pthread_attr_destroy(&attr);
  return rc;
}

static worker *alloc_worker(sbh_host *h) {
  worker *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->h = h;
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  return w;
}

static void free_worker(worker *w) {
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
  free(w);
}

/* start_job hands a job to an idle worker, or to a new OS thread. */
static int start_job(sbh_host *h, job j) {
  worker *w = NULL;
  if (!h->opts.fresh_threads) {
    pthread_mutex_lock(&h->idle_mu);
    w = h->idle;
    if (w)
      h->idle = w->next_idle;
    pthread_mutex_unlock(&h->idle_mu);
  }
  if (w) {
    pthread_mutex_lock(&w->mu);
    w->job = j;
    w->has_job = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return 0;
  }
  if (!(w = alloc_worker(h)))
    return -1;
  w->job = j;
  w->has_job = 1;
  if (new_worker(w) != 0) {
    free_worker(w);
    return -1;
  }
  return 0;
}

/* spawn is wasi.thread-spawn(start_arg) -> tid, negative on failure. */
static wasm_trap_t *spawn(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n) {
  (void)caller;
  (void)n;
  sbh_host *h = env;
  int32_t arg = v[0].i32;
  v[0].i32 = -1;
  if (!acquire_slot(h))
    return NULL; /* the guest's pthread_create reports EAGAIN */
  int tid = atomic_fetch_add(&h->next_tid, 1) + 1;
  if (tid <= 0 || tid > MAX_TID) {
    release_slot(h);
    return NULL;
  }
  job j = {tid, arg, NULL, h->opts.trace ? now_ns() : 0, 0};
  if (h->opts.instantiate_in_parent) {
    char *why = NULL;
    j.ready = instantiate(h, &why);
    if (!j.ready) {
      fprintf(stderr, "spawnbench wasmtime: thread %d: instantiate: %s\n", tid, why ? why : "");
      free(why);
      release_slot(h);
      return NULL;
    }
  }
  if (h->opts.trace)
    j.spawn_returned = now_ns(); /* "thread running" covers the hand-off below */
  if (start_job(h, j) != 0) {
    if (j.ready)
      release(j.ready);
    release_slot(h);
    return NULL;
  }
  if (h->opts.placement)
    note_parent_tid = tid;
  v[0].i32 = tid;
  return NULL;
}

/* note_of is thread tid's record of size bytes in table (chunk
 * pointers), allocated when create is set and it has none; NULL
 * otherwise (or out of memory). */
static void *note_of(_Atomic(char *) *table, size_t size, int tid, int create) {
  if (!table || tid <= 0 || tid > MAX_TID)
    return NULL;
  _Atomic(char *) *slot = &table[tid / PLACEMENT_CHUNK];
  char *chunk = atomic_load_explicit(slot, memory_order_acquire);
  if (!chunk && create) {
    char *fresh = calloc(PLACEMENT_CHUNK, size);
    if (!fresh)
      return NULL;
    if (atomic_compare_exchange_strong(slot, &chunk, fresh))
      chunk = fresh;
    else
      free(fresh); /* another thread installed it: chunk holds that one */
  }
  return chunk ? chunk + (size_t)(tid % PLACEMENT_CHUNK) * size : NULL;
}

static placement *placement_of(sbh_host *h, int tid, int create) {
  return note_of(h->placements, sizeof(placement), tid, create);
}

static thread_phases *phases_of(sbh_host *h, int tid, int create) {
  return note_of(h->phases, sizeof(thread_phases), tid, create);
}

/* note_placement runs after a monotonic clock reading, ns, was taken. */
static void note_placement(sbh_host *h, uint64_t ns) {
  int cpu = sched_getcpu();
  if (note_child_tid) {
    placement *p = placement_of(h, note_child_tid, 1);
    if (p && cpu >= 0)
      atomic_store_explicit(&p->child, cpu + 1, memory_order_relaxed);
    thread_phases *ph = phases_of(h, note_child_tid, 1);
    if (ph) {
      uint64_t ends[SBH_PHASES] = {trace_running, trace_store_ready, trace_instantiated, ns};
      for (int i = 0; i < SBH_PHASES; i++)
        atomic_store_explicit(&ph->end[i], ends[i], memory_order_relaxed);
    }
    note_child_tid = 0;
  }
  if (note_parent_tid) {
    placement *p = placement_of(h, note_parent_tid, 1);
    if (p && cpu >= 0)
      atomic_store_explicit(&p->parent, cpu + 1, memory_order_relaxed);
    note_parent_tid = 0;
  }
}

int sbh_spawned(sbh_host *h) { return atomic_load(&h->next_tid); }

void sbh_placement(sbh_host *h, int tid, int *parent_cpu, int *child_cpu) {
  placement *p = placement_of(h, tid, 0);
  *parent_cpu = p ? atomic_load_explicit(&p->parent, memory_order_relaxed) - 1 : -1;
  *child_cpu = p ? atomic_load_explicit(&p->child, memory_order_relaxed) - 1 : -1;
}

void sbh_phases(sbh_host *h, int tid, uint64_t out[SBH_PHASES]) {
  thread_phases *p = phases_of(h, tid, 0);
  for (int i = 0; i < SBH_PHASES; i++)
    out[i] = p ? atomic_load_explicit(&p->end[i], memory_order_relaxed) : 0;
}

static void store_le64(uint8_t *p, uint64_t x);

/* WASI preview1 errno values. */
enum { ERRNO_SUCCESS = 0, ERRNO_BADF = 8, ERRNO_INVAL = 28 };

/* guest_ptr checks that [addr, addr+len) lies in memory 0 and that addr is
 * aligned to align, and returns it as a host pointer; otherwise it returns
 * NULL and the error Wasmtime's WASI raises for such a pointer. */
static uint8_t *guest_ptr(sbh_host *h, const char *func, uint32_t addr, uint64_t len, uint32_t align,
                          wasm_trap_t **trap) {
  if (addr % align != 0) {
    *trap = host_error("%s: pointer %u not aligned to %u", func, addr, align);
    return NULL;
  }
  if ((uint64_t)addr + len > wasmtime_sharedmemory_data_size(h->memory0)) {
    *trap = host_error("%s: pointer out of bounds: %llu bytes at %u", func, (unsigned long long)len, addr);
    return NULL;
  }
  return h->memory0_base + addr;
}

/* clock_time_get(id, precision, out) -> errno. Every Store's WASI context
 * counts its monotonic clock from its own creation, so a child's reading
 * minus its parent's would be meaningless; the kernel's CLOCK_MONOTONIC has
 * one origin for every thread of the process. As Wasmtime 46's WASI does,
 * the CPU-time clocks are refused with BADF, an unknown clock and a bad
 * pointer are errors, not errnos. */
static wasm_trap_t *clock_time_get(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n) {
  (void)caller;
  (void)n;
  sbh_host *h = env;
  uint32_t id = (uint32_t)v[0].i32;
  uint32_t out = (uint32_t)v[2].i32;
  clockid_t cid;
  switch (id) {
  case 0:
    cid = CLOCK_REALTIME;
    break;
  case 1:
    cid = CLOCK_MONOTONIC;
    break;
  case 2:
  case 3:
    v[0].i32 = ERRNO_BADF;
    return NULL;
  default:
    return host_error("clock_time_get: invalid clock id %u", id);
  }
  struct timespec ts;
  if (clock_gettime(cid, &ts) != 0) {
    v[0].i32 = ERRNO_INVAL;
    return NULL;
  }
  uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  if (trace_first_clock && *trace_first_clock == 0 && id == 1)
    *trace_first_clock = ns;
  if ((note_child_tid | note_parent_tid) && id == 1)
    note_placement(h, ns);
  wasm_trap_t *trap = NULL;
  uint8_t *p = guest_ptr(h, "clock_time_get", out, 8, 8, &trap);
  if (!p)
    return trap;
  store_le64(p, ns);
  v[0].i32 = ERRNO_SUCCESS;
  return NULL;
}

static void store_le64(uint8_t *p, uint64_t x) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(x >> (8 * i));
}

static uint64_t load_le64(const uint8_t *p) {
  uint64_t x = 0;
  for (int i = 7; i >= 0; i--)
    x = x << 8 | p[i];
  return x;
}

/* WASI preview1 layouts: a subscription is 48 bytes (userdata at 0, tag
 * at 8, then for a clock: id at 16, timeout at 24, precision at 32, flags
 * at 40); an event is 32 bytes (userdata at 0, errno at 8, type at 10). */
enum { SUBSCRIPTION_SIZE = 48, EVENT_SIZE = 32, SUBCLOCK_ABSTIME = 1 };

/* poll_oneoff(in, out, nsubscriptions, nevents) -> errno. A poll made of
 * clock subscriptions only (a sleep) is served here, on the kernel's
 * clocks, so a sleep is as fine-grained as the clock that times it:
 * Wasmtime's own WASI rounds a short sleep up to about a millisecond. Any
 * other poll goes to Wasmtime's WASI unchanged. */
static wasm_trap_t *poll_oneoff(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n) {
  (void)n;
  sbh_host *h = env;
  uint32_t in = (uint32_t)v[0].i32, out = (uint32_t)v[1].i32, nsubs = (uint32_t)v[2].i32,
           nevents = (uint32_t)v[3].i32;
  const uint8_t *subs = NULL;
  int clocks_only = nsubs > 0;
  if (clocks_only) {
    wasm_trap_t *trap = NULL;
    subs = guest_ptr(h, "poll_oneoff", in, (uint64_t)nsubs * SUBSCRIPTION_SIZE, 8, &trap);
    if (!subs)
      return trap;
    for (uint32_t i = 0; i < nsubs && clocks_only; i++) {
      const uint8_t *s = subs + (size_t)i * SUBSCRIPTION_SIZE;
      uint32_t id = (uint32_t)s[16] | (uint32_t)s[17] << 8 | (uint32_t)s[18] << 16 | (uint32_t)s[19] << 24;
      clocks_only = s[8] == 0 && (id == 0 || id == 1);
    }
  }
  if (!clocks_only) {
    if (h->opts.trace)
      fprintf(stderr, "# trace poll_oneoff: %u subscriptions, not only clocks: Wasmtime's WASI serves it\n", nsubs);
    wasmtime_context_t *ctx = wasmtime_caller_context(caller);
    thread_instance *ti = wasmtime_context_get_data(ctx);
    wasm_trap_t *trap = NULL;
    wasmtime_error_t *err = NULL;
    if (!ti->has_poll_func) {
      wasmtime_instance_t tramp;
      err = wasmtime_instance_pre_instantiate(h->tramp_pre, ctx, &tramp, &trap);
      wasmtime_extern_t f;
      if (!err && !trap) {
        if (!wasmtime_instance_export_get(ctx, &tramp, "poll", 4, &f) || f.kind != WASMTIME_EXTERN_FUNC)
          return host_error("poll_oneoff: the trampoline exports no poll");
        ti->poll_func = f.of.func;
        ti->has_poll_func = 1;
      }
    }
    if (!err && !trap)
      err = wasmtime_func_call_unchecked(ctx, &ti->poll_func, v, 4, &trap);
    if (err) {
      char *m = error_text(err);
      trap = host_error("%s", m ? m : "poll_oneoff failed");
      free(m);
    }
    return trap;
  }
  wasm_trap_t *trap = NULL;
  uint8_t *events = guest_ptr(h, "poll_oneoff", out, (uint64_t)nsubs * EVENT_SIZE, 8, &trap);
  if (!events)
    return trap;
  uint8_t *count = guest_ptr(h, "poll_oneoff", nevents, 4, 4, &trap);
  if (!count)
    return trap;
  /* Every deadline on CLOCK_MONOTONIC: a realtime one by its distance
   * from now. */
  uint64_t mono_now = now_ns(), earliest = UINT64_MAX;
  uint64_t *deadlines = malloc(sizeof(uint64_t) * nsubs);
  if (!deadlines)
    return host_error("poll_oneoff: out of memory");
  for (uint32_t i = 0; i < nsubs; i++) {
    const uint8_t *s = subs + (size_t)i * SUBSCRIPTION_SIZE;
    uint64_t timeout = load_le64(s + 24), d;
    if (!(s[40] & SUBCLOCK_ABSTIME)) {
      d = mono_now + timeout;
      if (d < mono_now)
        d = UINT64_MAX;
    } else if (s[16] == 1) {
      d = timeout;
    } else {
      struct timespec rt;
      clock_gettime(CLOCK_REALTIME, &rt);
      uint64_t real_now = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
      d = timeout <= real_now ? mono_now : mono_now + (timeout - real_now);
    }
    deadlines[i] = d;
    if (d < earliest)
      earliest = d;
  }
  struct timespec until = {(time_t)(earliest / 1000000000u), (long)(earliest % 1000000000u)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR) {
  }
  /* What the sleep asked of the kernel, so a test can tell this path from
   * Wasmtime's rounded one without timing it. */
  if (h->opts.trace) {
    uint64_t woke = now_ns();
    fprintf(stderr,
            "# trace poll_oneoff: %u clock subscriptions served by the host: "
            "clock_nanosleep(CLOCK_MONOTONIC) for %lld ns, woke %lld ns after the deadline\n",
            nsubs, (long long)(earliest > mono_now ? earliest - mono_now : 0),
            (long long)(woke > earliest ? woke - earliest : 0));
  }
  uint32_t fired = 0;
  for (uint32_t i = 0; i < nsubs; i++) {
    if (deadlines[i] > earliest)
      continue;
    uint8_t *e = events + (size_t)fired * EVENT_SIZE;
    memset(e, 0, EVENT_SIZE);
    memcpy(e, subs + (size_t)i * SUBSCRIPTION_SIZE, 8); /* userdata */
    fired++;
  }
  free(deadlines);
  for (int i = 0; i < 4; i++)
    count[i] = (uint8_t)(fired >> (8 * i));
  v[0].i32 = ERRNO_SUCCESS;
  return NULL;
}

static wasm_functype_t *functype(size_t np, const uint8_t *params, size_t nr, const uint8_t *results) {
  wasm_valtype_t *p[4], *r[1];
  for (size_t i = 0; i < np; i++)
    p[i] = wasm_valtype_new(params[i]);
  for (size_t i = 0; i < nr; i++)
    r[i] = wasm_valtype_new(results[i]);
  wasm_valtype_vec_t pv, rv;
  wasm_valtype_vec_new(&pv, np, p);
  wasm_valtype_vec_new(&rv, nr, r);
  return wasm_functype_new(&pv, &rv);
}

static wasmtime_error_t *define_host_functions(sbh_host *h) {
  static const uint8_t clock_params[] = {WASM_I32, WASM_I64, WASM_I32}, i32[] = {WASM_I32};
  static const uint8_t poll_params[] = {WASM_I32, WASM_I32, WASM_I32, WASM_I32};
  wasm_functype_t *ty = functype(4, poll_params, 1, i32);
  wasmtime_error_t *err = wasmtime_linker_define_func_unchecked(
      h->linker, "wasi_snapshot_preview1", 22, "poll_oneoff", 11, ty, poll_oneoff, h, NULL);
  wasm_functype_delete(ty);
  if (err)
    return err;
  ty = functype(3, clock_params, 1, i32);
  err = wasmtime_linker_define_func_unchecked(
      h->linker, "wasi_snapshot_preview1", 22, "clock_time_get", 14, ty, clock_time_get, h, NULL);
  wasm_functype_delete(ty);
  if (err)
    return err;
  ty = functype(1, i32, 1, i32);
  err = wasmtime_linker_define_func_unchecked(h->linker, "wasi", 4, "thread-spawn", 12, ty, spawn, h, NULL);
  wasm_functype_delete(ty);
  return err;
}

sbh_host *sbh_new(const uint8_t *wasm, size_t len, const uint8_t *tramp, size_t tramp_len,
                  const sbh_memory *mems, size_t nmems,
                  const char **argv, size_t argc, const char **env_names,
                  const char **env_values, size_t envc, sbh_options opts, char **why) {
  sbh_host *h = calloc(1, sizeof *h);
  if (!h) {
    *why = format("out of memory");
    return NULL;
  }
  h->opts = opts;
  h->argv = argv;
  h->argc = argc;
  h->env_names = env_names;
  h->env_values = env_values;
  h->envc = envc;
  pthread_mutex_init(&h->idle_mu, NULL);
  pthread_mutex_init(&h->exit_mu, NULL);
  pthread_cond_init(&h->exit_cv, NULL);
  pthread_cond_init(&h->warm_cv, NULL);
  pthread_mutex_init(&h->slot_mu, NULL);
  pthread_mutex_init(&h->sigstack_mu, NULL);
  {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->slot_cv, &ca);
    pthread_condattr_destroy(&ca);
  }
  /* Threads take pooling slots too: the main thread's instance holds one,
   * so spawned threads may use the rest, and a spawn past them fails with
   * EAGAIN instead of failing to instantiate. */
  h->limit = opts.max_threads;
  /* Untouched pages of these cost nothing. */
  if (opts.placement) {
    h->placements = calloc(MAX_TID / PLACEMENT_CHUNK + 1, sizeof *h->placements);
    if (!h->placements) {
      *why = format("out of memory for the placement table");
      return NULL;
    }
  }
  if (opts.phases) {
    h->phases = calloc(MAX_TID / PLACEMENT_CHUNK + 1, sizeof *h->phases);
    if (!h->phases) {
      *why = format("out of memory for the phase table");
      return NULL;
    }
  }
  if (opts.pooling && opts.pool_instances > 1 &&
      (h->limit <= 0 || (uint32_t)h->limit > opts.pool_instances - 1))
    h->limit = (int)(opts.pool_instances - 1);

  wasm_config_t *cfg = wasm_config_new();
  wasmtime_config_wasm_threads_set(cfg, true);
  if (opts.pooling) {
    wasmtime_pooling_allocation_config_t *pool = wasmtime_pooling_allocation_config_new();
    /* Threads import their memory, so instances need slots for their
     * vmctx and tables only. */
    /* Twice the threads: a thread may also hold a poll_oneoff trampoline. */
    wasmtime_pooling_allocation_config_total_core_instances_set(pool, 2 * opts.pool_instances);
    wasmtime_pooling_allocation_config_total_tables_set(pool, opts.pool_instances);
    wasmtime_pooling_allocation_config_total_memories_set(pool, 1);
    /* A freed slot's table pages are cleared in place rather than given
     * back with madvise, and what is given back goes in batches: each
     * madvise takes the memory-map lock and flushes TLBs on every CPU the
     * process runs on. Measured side by side with native: sequential
     * n=1000 last 10 5.12x -> 2.99x, parallel 2.98x -> 1.56x. */
    wasmtime_pooling_allocation_config_table_keep_resident_set(pool, 1 << 16);
    wasmtime_pooling_allocation_config_decommit_batch_size_set(pool, 64);
    wasmtime_pooling_allocation_strategy_set(cfg, pool);
    wasmtime_pooling_allocation_config_delete(pool);
  }
  h->engine = wasm_engine_new_with_config(cfg);
  wasmtime_error_t *err = wasmtime_module_new(h->engine, wasm, len, &h->module);
  if (err) {
    char *m = error_text(err);
    *why = format("compile: %s", m);
    free(m);
    return NULL;
  }
  if (opts.prestart_threads > 0) {
    static const uint8_t empty_func[] = {
        0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, /* magic, version */
        0x01, 0x04, 0x01, 0x60, 0x00, 0x00,             /* type 0: () -> () */
        0x03, 0x02, 0x01, 0x00,                         /* func 0: type 0 */
        0x07, 0x05, 0x01, 0x01, 'f', 0x00, 0x00,        /* export "f" */
        0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b,             /* body: end */
    };
    err = wasmtime_module_new(h->engine, empty_func, sizeof empty_func, &h->warm_module);
    if (err) {
      char *m = error_text(err);
      *why = format("warm-up module: %s", m);
      free(m);
      return NULL;
    }
  }
  h->linker = wasmtime_linker_new(h->engine);
  wasmtime_linker_allow_shadowing(h->linker, true);
  h->wasi_linker = wasmtime_linker_new(h->engine);
  wasmtime_module_t *tramp_module = NULL;
  h->def_store = wasmtime_store_new(h->engine, NULL, NULL);
  for (size_t i = 0; i < nmems; i++) {
    wasm_memorytype_t *mt = NULL;
    wasmtime_sharedmemory_t *sm = NULL;
    err = wasmtime_memorytype_new(mems[i].min_pages, true, mems[i].max_pages, false, true, 16, &mt);
    if (!err) {
      err = wasmtime_sharedmemory_new(h->engine, mt, &sm);
      wasm_memorytype_delete(mt);
    }
    if (!err) {
      wasmtime_extern_t ext = {.kind = WASMTIME_EXTERN_SHAREDMEMORY};
      ext.of.sharedmemory = sm;
      err = wasmtime_linker_define(h->linker, wasmtime_store_context(h->def_store), mems[i].module,
                                   strlen(mems[i].module), mems[i].name, strlen(mems[i].name), &ext);
    if (!err && i == 0)
      err = wasmtime_linker_define(h->wasi_linker, wasmtime_store_context(h->def_store), mems[i].module,
                                   strlen(mems[i].module), mems[i].name, strlen(mems[i].name), &ext);
    }
    if (err) {
      char *m = error_text(err);
      *why = format("shared memory %s.%s: %s", mems[i].module, mems[i].name, m);
      free(m);
      return NULL;
    }
    if (i == 0) {
      /* WASI writes to memory 0, the first import. Its base never moves:
       * a shared memory is reserved at its maximum. */
      h->memory0 = sm;
      h->memory0_base = wasmtime_sharedmemory_data(sm);
    }
  }
  err = wasmtime_linker_define_wasi(h->linker);
  if (!err)
    err = wasmtime_linker_define_wasi(h->wasi_linker);
  if (!err)
    err = wasmtime_module_new(h->engine, tramp, tramp_len, &tramp_module);
  if (!err)
    err = wasmtime_linker_instantiate_pre(h->wasi_linker, tramp_module, &h->tramp_pre);
  if (!err)
    err = define_host_functions(h);
  if (!err)
    err = wasmtime_linker_instantiate_pre(h->linker, h->module, &h->pre);
  if (err) {
    char *m = error_text(err);
    *why = format("link: %s", m);
    free(m);
    return NULL;
  }
  return h;
}

static void *main_thread(void *p) {
  sbh_host *h = p;
  char *why = NULL;
  thread_instance *t = instantiate(h, &why);
  if (!t) {
    fprintf(stderr, "spawnbench wasmtime: main thread: instantiate: %s\n", why ? why : "");
    free(why);
    decide_exit(h, TRAP_EXIT_CODE);
    return NULL;
  }
  /* The host's clock_time_get and poll_oneoff write to memory 0; WASI
   * writes to the exported "memory". They must be the same memory. */
  wasmtime_extern_t mem;
  int same = 0;
  if (wasmtime_instance_export_get(t->ctx, &t->instance, "memory", 6, &mem)) {
    if (mem.kind == WASMTIME_EXTERN_SHAREDMEMORY) {
      same = wasmtime_sharedmemory_data(mem.of.sharedmemory) == h->memory0_base;
      wasmtime_sharedmemory_delete(mem.of.sharedmemory);
    }
  }
  if (!same) {
    fprintf(stderr, "spawnbench wasmtime: the exported \"memory\" is not the first imported memory, "
                    "which the host's WASI clock and sleep write to\n");
    decide_exit(h, HOST_ERROR_EXIT_CODE);
    return NULL;
  }
  wasmtime_error_t *err = NULL;
  wasm_trap_t *trap = NULL;
  if (call(h, t, "_start", NULL, 0, "main thread", &err, &trap) == 0) {
    if (err || trap)
      fail(h, "main thread", err, trap);
    else
      decide_exit(h, 0);
  }
  return NULL;
}

int sbh_run(sbh_host *h) {
  /* Prestarted workers are warm and idle before _start runs, so early
   * spawns find an OS thread ready, as with Emscripten's
   * PTHREAD_POOL_SIZE. */
  int want = h->opts.fresh_threads ? 0 : h->opts.prestart_threads;
  for (int i = 0; i < want; i++) {
    worker *w = alloc_worker(h);
    if (!w || new_worker(w) != 0) {
      fprintf(stderr, "spawnbench wasmtime: could not prestart %d threads\n", want);
      return TRAP_EXIT_CODE;
    }
  }
  pthread_mutex_lock(&h->idle_mu);
  while (h->warm_workers < want)
    pthread_cond_wait(&h->warm_cv, &h->idle_mu);
  pthread_mutex_unlock(&h->idle_mu);

  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t th;
  int rc = pthread_create(&th, &attr, main_thread, h);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    fprintf(stderr, "spawnbench wasmtime: start the main thread: error %d\n", rc);
    return TRAP_EXIT_CODE;
  }
  pthread_mutex_lock(&h->exit_mu);
  while (!h->exit_ready)
    pthread_cond_wait(&h->exit_cv, &h->exit_mu);
  int code = h->exit_code;
  pthread_mutex_unlock(&h->exit_mu);
  return code;
}

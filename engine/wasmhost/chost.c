/*
 * chost.c: the spawn path of the host, in C over Wasmtime's C API, so a
 * spawn never crosses into Go: thread-spawn and clock_time_get are C host
 * functions, a thread is a pthread, and its Store and instance come from
 * one InstancePre whose imports were resolved once.
 */
#define _GNU_SOURCE
#include "chost.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capi.h"

/* TRAP_EXIT_CODE is 128 + SIGABRT, as the Wasmtime CLI exits on a trap. */
#define TRAP_EXIT_CODE 134
/* MAX_TID is the largest thread id the wasi-threads ABI allows. */
#define MAX_TID 0x1FFFFFFF

typedef struct thread_instance {
  wasmtime_store_t *store;
  wasmtime_context_t *ctx;
  wasmtime_instance_t instance;
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
  atomic_int live;

  pthread_mutex_t idle_mu;
  worker *idle;

  pthread_mutex_t exit_mu;
  pthread_cond_t exit_cv;
  int exit_decided, exit_code;

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

static void decide_exit(sbh_host *h, int code) {
  pthread_mutex_lock(&h->exit_mu);
  if (!h->exit_decided) {
    h->exit_decided = 1;
    h->exit_code = code;
    pthread_cond_signal(&h->exit_cv);
  }
  pthread_mutex_unlock(&h->exit_mu);
}

/* fail ends the program for what a thread's call returned: proc_exit's
 * code, or a report of anything else. */
static void fail(sbh_host *h, const char *where, wasmtime_error_t *err, wasm_trap_t *trap) {
  int status;
  if (err && wasmtime_error_exit_status(err, &status)) {
    wasmtime_error_delete(err);
    decide_exit(h, status);
    return;
  }
  char *msg = err ? error_text(err) : trap_text(trap);
  fprintf(stderr, "spawnbench wasmtime: %s: %s\n", where, msg ? msg : "(no message)");
  free(msg);
  decide_exit(h, TRAP_EXIT_CODE);
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
  t->store = wasmtime_store_new(h->engine, NULL, NULL);
  t->ctx = wasmtime_store_context(t->store);
  wasmtime_error_t *err = wasmtime_context_set_wasi(t->ctx, wasi);
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
  uint64_t running = h->opts.trace ? now_ns() : 0, first_clock = 0;
  trace_first_clock = h->opts.trace ? &first_clock : NULL;
  thread_instance *t = j->ready;
  if (!t) {
    char *why = NULL;
    t = instantiate(h, &why);
    if (!t) {
      fprintf(stderr, "spawnbench wasmtime: %s: instantiate: %s\n", where, why ? why : "");
      free(why);
      decide_exit(h, TRAP_EXIT_CODE);
      atomic_fetch_sub(&h->live, 1);
      return;
    }
  }
  uint64_t instantiated = h->opts.trace ? now_ns() : 0;
  int32_t args[2] = {j->tid, j->arg};
  wasmtime_error_t *err = NULL;
  wasm_trap_t *trap = NULL;
  int called = call(h, t, "wasi_thread_start", args, 2, where, &err, &trap);
  if (h->opts.trace)
    fprintf(stderr,
            "# trace thread %d (ns after thread-spawn was entered): spawn returned %lld, "
            "thread running %lld, instantiated %lld, first clock read %lld\n",
            (int)j->tid, (long long)(j->spawn_returned - j->spawn_entered),
            (long long)(running - j->spawn_entered), (long long)(instantiated - j->spawn_entered),
            first_clock ? (long long)(first_clock - j->spawn_entered) : -1LL);
  trace_first_clock = NULL;
  /* After the trace: ending the program may end the process at once. */
  if (called == 0 && (err || trap))
    fail(h, where, err, trap);
  release(t);
  atomic_fetch_sub(&h->live, 1);
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
    __builtin_ia32_pause();
    if (i % 64 == 0 && now_ns() >= until)
      return;
  }
}

static void *worker_main(void *p) {
  worker *w = p;
  sbh_host *h = w->h;
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
  free_worker(w);
  return NULL;
}

/* new_worker starts an OS thread for w; it runs w's job if it has one and,
 * with reuse, then waits in the idle list for the next. */
static int new_worker(worker *w) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
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
  int live = atomic_fetch_add(&h->live, 1);
  if (h->opts.max_threads > 0 && live >= h->opts.max_threads) {
    atomic_fetch_sub(&h->live, 1);
    return NULL;
  }
  int tid = atomic_fetch_add(&h->next_tid, 1) + 1;
  if (tid <= 0 || tid > MAX_TID) {
    atomic_fetch_sub(&h->live, 1);
    return NULL;
  }
  job j = {tid, arg, NULL, h->opts.trace ? now_ns() : 0, 0};
  if (h->opts.instantiate_in_parent) {
    char *why = NULL;
    j.ready = instantiate(h, &why);
    if (!j.ready) {
      fprintf(stderr, "spawnbench wasmtime: thread %d: instantiate: %s\n", tid, why ? why : "");
      free(why);
      atomic_fetch_sub(&h->live, 1);
      return NULL;
    }
  }
  if (h->opts.trace)
    j.spawn_returned = now_ns(); /* "thread running" covers the hand-off below */
  if (start_job(h, j) != 0) {
    if (j.ready)
      release(j.ready);
    atomic_fetch_sub(&h->live, 1);
    return NULL;
  }
  v[0].i32 = tid;
  return NULL;
}

/* WASI preview1 errno values. */
enum { ERRNO_SUCCESS = 0, ERRNO_FAULT = 21, ERRNO_INVAL = 28 };

/* clock_time_get(id, precision, out) -> errno. Every Store's WASI context
 * counts its monotonic clock from its own creation, so a child's reading
 * minus its parent's would be meaningless; the kernel's CLOCK_MONOTONIC has
 * one origin for every thread of the process. */
static wasm_trap_t *clock_time_get(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n) {
  (void)caller;
  (void)n;
  sbh_host *h = env;
  static const clockid_t ids[] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
                                  CLOCK_THREAD_CPUTIME_ID};
  uint32_t id = (uint32_t)v[0].i32;
  uint32_t out = (uint32_t)v[2].i32;
  struct timespec ts;
  if (id >= sizeof ids / sizeof ids[0] || clock_gettime(ids[id], &ts) != 0) {
    v[0].i32 = ERRNO_INVAL;
    return NULL;
  }
  uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  if (trace_first_clock && *trace_first_clock == 0 && id == 1)
    *trace_first_clock = ns;
  if ((uint64_t)out + 8 > wasmtime_sharedmemory_data_size(h->memory0)) {
    v[0].i32 = ERRNO_FAULT;
    return NULL;
  }
  memcpy(h->memory0_base + out, &ns, 8); /* wasm is little-endian, as is x86-64 */
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
  wasm_functype_t *ty = functype(3, clock_params, 1, i32);
  wasmtime_error_t *err = wasmtime_linker_define_func_unchecked(
      h->linker, "wasi_snapshot_preview1", 22, "clock_time_get", 14, ty, clock_time_get, h, NULL);
  wasm_functype_delete(ty);
  if (err)
    return err;
  ty = functype(1, i32, 1, i32);
  err = wasmtime_linker_define_func_unchecked(h->linker, "wasi", 4, "thread-spawn", 12, ty, spawn, h, NULL);
  wasm_functype_delete(ty);
  return err;
}

sbh_host *sbh_new(const uint8_t *wasm, size_t len, const sbh_memory *mems, size_t nmems,
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

  wasm_config_t *cfg = wasm_config_new();
  wasmtime_config_wasm_threads_set(cfg, true);
  if (opts.pooling) {
    wasmtime_pooling_allocation_config_t *pool = wasmtime_pooling_allocation_config_new();
    /* Threads import their memory, so instances need slots for their
     * vmctx and tables only. */
    wasmtime_pooling_allocation_config_total_core_instances_set(pool, opts.pool_instances);
    wasmtime_pooling_allocation_config_total_tables_set(pool, opts.pool_instances);
    wasmtime_pooling_allocation_config_total_memories_set(pool, 1);
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
  while (!h->exit_decided)
    pthread_cond_wait(&h->exit_cv, &h->exit_mu);
  int code = h->exit_code;
  pthread_mutex_unlock(&h->exit_mu);
  return code;
}

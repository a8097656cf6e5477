/*
 * sbrt.h: spawnbench's freestanding runtime for wasm32-wasi-threads.
 *
 * No threaded libc can be installed on this machine for this target, so the
 * benchmarks get exactly what they use and nothing else: pthread_create and
 * pthread_join over the wasi-threads ABI, and the sb_* helpers of c/sb.h over
 * raw WASI preview1 calls. Less runtime means less between the benchmark and
 * the spawn it measures.
 *
 * The ABI, as the host sees it:
 *   - memory is imported (env.memory) and shared;
 *   - pthread_create calls the import wasi.thread-spawn(arg), which returns a
 *     positive thread id or a negative number when the host cannot spawn;
 *   - the host runs the exported wasi_thread_start(tid, arg) on a new thread
 *     (c/wasi/thread_start.s), which installs the thread's own stack pointer
 *     before any C runs there;
 *   - _start (sbrt.c) reads argv, calls main and ends with proc_exit.
 *
 * Build (see engine/env/wasithreads.go): clang-16 --target=wasm32-wasi-threads
 * -matomics -mbulk-memory -ffreestanding -nostdlib, linked by wasm-ld with
 * --import-memory --export-memory --shared-memory --max-memory=N. Thread
 * stacks are SBRT_STACK_SIZE bytes (override with -DSBRT_STACK_SIZE=...).
 *
 * Each thread's region holds, from the bottom: a canary, the stack, the
 * thread's TLS block (initialised by __wasm_init_tls, so _Thread_local
 * works) and the control block. pthread_join checks the canary and ends
 * the program with a clear message if the stack overflowed. Output
 * helpers buffer in one shared buffer and are meant for the main thread,
 * as the benchmarks use them.
 */
#ifndef SBRT_H
#define SBRT_H

#include <stddef.h>
#include <stdint.h>

#ifndef SBRT_STACK_SIZE
#define SBRT_STACK_SIZE 65536
#endif

/* sbrt_thread is one thread's control block; it sits at the top of the
 * thread's region. thread_start.s knows the first two fields' offsets:
 * keep them first. */
struct sbrt_thread {
  uint32_t stack_top;      /* offset 0: the new thread's __stack_pointer */
  int32_t done;            /* offset 4: 1 once the start routine returned */
  void *(*start)(void *);
  void *arg;
  void *result;
  void *tls;               /* this thread's TLS block */
  uint64_t *canary;        /* at the bottom of the stack */
  size_t stack_size;
  struct sbrt_thread *next_free; /* blocks of joined threads are reused */
};

typedef struct sbrt_thread *pthread_t;

/* Attributes: only the stack size is honoured. */
typedef struct {
  size_t stack_size; /* 0: SBRT_STACK_SIZE */
} pthread_attr_t;

#define PTHREAD_STACK_MIN 16384

int pthread_attr_init(pthread_attr_t *attr);
int pthread_attr_destroy(pthread_attr_t *attr);
int pthread_attr_setstacksize(pthread_attr_t *attr, size_t size);
int pthread_attr_getstacksize(const pthread_attr_t *attr, size_t *size);
int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                   void *(*start)(void *), void *arg);
int pthread_join(pthread_t thread, void **result);

int32_t sbrt_clock_time_get(uint32_t clock, uint64_t precision, uint64_t *time)
    __attribute__((import_module("wasi_snapshot_preview1"),
                   import_name("clock_time_get")));

/* sb_now_ns reads WASI's monotonic clock. The host must give every thread
 * the same origin (engine/wasmhost does). Inline: it is on the measured
 * path in the parent and in the child. */
static inline int64_t sb_now_ns(void) {
  uint64_t t = 0;
  sbrt_clock_time_get(1 /* CLOCK_MONOTONIC */, 1, &t);
  return (int64_t)t;
}

/* sb_cpu: WASI cannot tell a thread its CPU. The embedded host reports
 * placement itself, as "#cpu" lines (c/sb.h). */
static inline int sb_cpu(void) { return -1; }

void sb_sleep_us(int64_t us);
/* sb_alloc returns zeroed, 16-byte aligned memory that is never freed, or
 * 0 when memory cannot grow. */
void *sb_alloc(size_t bytes);
void sb_print3(int64_t a, int64_t b, int64_t c);
void sb_print1(int64_t a);
/* sb_print_clock prints the "#clock step_ns read_ns" directive. */
void sb_print_clock(int64_t step, int64_t read);
/* sb_print_spawn prints one spawn line (c/sb.h); the CPU fields only when
 * at least one CPU is known. */
void sb_print_spawn(int64_t spawn, int64_t create, int64_t joined, int parent_cpu, int child_cpu);
/* sb_print_at prints the "#at K call_ns" directive, sb_print_sync one
 * "#sync" directive (c/sb.h). */
void sb_print_at(int64_t k, int64_t ns);
void sb_print_sync(void);
void sb_flush(void);
/* sb_error writes one line to stderr: "spawnbench: what: code". */
void sb_error(const char *what, int code);
int64_t sb_atoi(const char *s);

#endif

/*
 * sb.h: the thin platform layer shared by every benchmark in c/.
 *
 * The benchmarks call pthread_create and pthread_join directly (that is the
 * cost being measured) and use the sb_* helpers below for everything else.
 * On hosted targets (native, Emscripten) the helpers are a few lines over
 * libc: glibc, Emscripten's, or wasi-libc built with POSIX threads (the
 * wasi-libc payload, what a wasi-sdk user gets). Built freestanding for
 * wasm32-wasi-threads (the wasi-freestanding payload), c/wasi/ supplies a
 * small runtime with the same names instead.
 *
 * Output protocol, the contract with spawnbench: after all joins, one line
 * per spawn in spawn order, three integers in nanoseconds, then, where the
 * benchmark can tell, two CPU numbers:
 *     spawn_ns create_ns joined_ns [parent_cpu child_cpu]
 *   spawn_ns   = child's first clock reading - parent's reading just before
 *                pthread_create
 *   create_ns  = parent's reading when pthread_create returned - same start
 *   joined_ns  = parent's reading when pthread_join returned - same start
 *   parent_cpu = the CPU the parent was on when pthread_create returned,
 *                read after that clock reading
 *   child_cpu  = the CPU the child was on at its first clock reading, read
 *                after it
 * joined_ns brackets spawn_ns from outside the child: a coherent clock gives
 * 0 <= spawn_ns <= joined_ns. A CPU is -1 when it is not known; a line
 * without the two CPU fields says nothing about placement. Neither CPU read
 * is inside spawn_ns or create_ns: each follows a clock reading.
 *
 * The calibration benchmark also prints, before its one figure,
 *     #clock step_ns read_ns
 * its clock's smallest step between two readings that differ (0 when none
 * changed) and the mean cost of one reading.
 *
 * Lines starting with '#' are comments, except one directive, for a host
 * that knows where a benchmark's threads ran when the benchmark cannot
 * (spawnbench's embedded Wasmtime: WASI has no getcpu):
 *     #cpu K parent_cpu child_cpu
 * gives spawn K's (1-based, in spawn order) CPUs, as the two fields would;
 * the host prints these after the benchmark's own lines.
 *
 * For tracing (engine/trace), after its spawn lines a benchmark prints
 *     #at K call_ns
 * spawn K's call as its clock read it (the parent's reading just before
 * pthread_create, not from any start), and, where its clock may count
 * from an origin of the host's own (WASI's monotonic clock in Wasmtime),
 *     #sync clock_ns realtime_ns clock_ns
 * one CLOCK_REALTIME reading between two of its clock, the tightest of a
 * few, which spawnbench uses to put that clock on CLOCK_MONOTONIC; under
 * Emscripten in Node.js, whose clock cannot bracket CLOCK_REALTIME,
 *     #mono mono_ns clock_ns mono_ns
 * one reading of its clock between two of CLOCK_MONOTONIC instead. A host
 * that times its own work in a new thread (spawnbench's embedded Wasmtime,
 * `spawnbench wasmtime --phases`) prints, after the benchmark's lines,
 *     #phase K name end_ns
 * where its phase name of spawn K ended, on the benchmark's clock as read
 * (the phases in the order they happen, each beginning where the one
 * before ended). All are printed after every join, outside anything
 * measured; a reader that does not know them skips them as comments.
 */
#ifndef SB_H
#define SB_H

#if defined(__wasm32__) && !defined(__EMSCRIPTEN__) && !__STDC_HOSTED__
#include "wasi/sbrt.h"
#else
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getcpu */
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* sb_now_ns reads a monotonic clock whose origin all threads share. */
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
/*
 * Emscripten's CLOCK_MONOTONIC is not that clock in a browser: up to 3.1.6
 * at least, a pthread's clock is its worker's performance.now() shifted by
 * an offset guessed from one message's send and arrival times, so child
 * and parent disagree by milliseconds (seen in Chromium: spawn_ns 4.5 ms
 * above joined_ns). HR-Time's timeOrigin + now() has one origin for a page
 * and all its workers, and for Node.js's worker threads: here a worker's
 * and its parent's readings agreed to within the sum's own step (a double
 * of epoch milliseconds steps by 0.24 us; Chromium coarsens now() to
 * 5 us). Node.js gets the same clock so the two hosts' figures compare.
 */
EM_JS(double, sb_em_shared_now_ms, (void), {
  return performance.timeOrigin + performance.now();
});
static inline int64_t sb_now_ns(void) {
  return (int64_t)(sb_em_shared_now_ms() * 1e6);
}
#else
static inline int64_t sb_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
#endif

static inline void sb_sleep_us(int64_t us) {
  struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static inline void *sb_alloc(size_t bytes) { return calloc(1, bytes); }

static inline void sb_print3(int64_t a, int64_t b, int64_t c) {
  printf("%lld %lld %lld\n", (long long)a, (long long)b, (long long)c);
}

/* sb_cpu is the CPU the calling thread is on, or -1 where that cannot be
 * known (Emscripten, WASI). sched_getcpu makes no system call (vDSO or rseq):
 * tens of nanoseconds, and the benchmarks call it only after a clock
 * reading. */
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sched.h>
static inline int sb_cpu(void) { return sched_getcpu(); }
#else
static inline int sb_cpu(void) { return -1; }
#endif

/* sb_print_spawn prints one spawn line; the CPU fields only when at least
 * one CPU is known. */
static inline void sb_print_spawn(int64_t spawn, int64_t create, int64_t joined, int parent_cpu,
                                  int child_cpu) {
  if (parent_cpu < 0 && child_cpu < 0)
    sb_print3(spawn, create, joined);
  else
    printf("%lld %lld %lld %d %d\n", (long long)spawn, (long long)create, (long long)joined,
           parent_cpu, child_cpu);
}

static inline void sb_print1(int64_t a) { printf("%lld\n", (long long)a); }

static inline void sb_print_clock(int64_t step, int64_t read) {
  printf("#clock %lld %lld\n", (long long)step, (long long)read);
}

static inline void sb_flush(void) { fflush(stdout); }

static inline void sb_print_at(int64_t k, int64_t ns) {
  printf("#at %lld %lld\n", (long long)k, (long long)ns);
}

#ifdef __EMSCRIPTEN__
/* sb_em_mono_ns is CLOCK_MONOTONIC in ns where the JavaScript host can
 * read it (Node.js's process.hrtime, exact in a double for 104 days of
 * uptime), else -1 (a browser). */
EM_JS(double, sb_em_mono_ns, (void), {
  if (typeof process !== 'undefined' && process.hrtime && process.hrtime.bigint)
    return Number(process.hrtime.bigint());
  return -1;
});
/* timeOrigin + now() cannot bracket CLOCK_REALTIME ("#sync"); under
 * Node.js it is put between two CLOCK_MONOTONIC readings instead
 * ("#mono mono_ns clock_ns mono_ns"); in a browser nothing is printed. */
static inline void sb_print_sync(void) {
  int64_t best[3] = {0, 0, -1};
  for (int i = 0; i < 16; i++) {
    double a = sb_em_mono_ns();
    int64_t c = sb_now_ns();
    double b = sb_em_mono_ns();
    if (a < 0 || b < 0)
      return;
    if (best[2] < 0 || (int64_t)b - (int64_t)a < best[2] - best[0]) {
      best[0] = (int64_t)a;
      best[1] = c;
      best[2] = (int64_t)b;
    }
  }
  printf("#mono %lld %lld %lld\n", (long long)best[0], (long long)best[1], (long long)best[2]);
}
#else
static inline void sb_print_sync(void) {
  int64_t best[3] = {0, 0, -1};
  for (int i = 0; i < 16; i++) {
    struct timespec r;
    int64_t a = sb_now_ns();
    clock_gettime(CLOCK_REALTIME, &r);
    int64_t b = sb_now_ns();
    if (best[2] < 0 || b - a < best[2] - best[0]) {
      best[0] = a;
      best[1] = (int64_t)r.tv_sec * 1000000000 + r.tv_nsec;
      best[2] = b;
    }
  }
  printf("#sync %lld %lld %lld\n", (long long)best[0], (long long)best[1], (long long)best[2]);
}
#endif

/* sb_error writes one line to stderr: "spawnbench: what: code". */
static inline void sb_error(const char *what, int code) {
  fflush(stdout);
  fprintf(stderr, "spawnbench: %s: %d\n", what, code);
}

static inline int64_t sb_atoi(const char *s) { return strtoll(s, 0, 10); }
#endif

/*
 * What sequential.c and parallel.c share: the child every spawn runs, the
 * argument check, the result arrays and the output. Only the order of
 * creates and joins differs between the two.
 */

/* Each child writes only its own slot: its first clock reading, as its
 * very first action, then its CPU. */
struct sb_slot {
  int64_t at;
  int cpu;
};

static void *sb_child(void *arg) {
  struct sb_slot *s = arg;
  s->at = sb_now_ns();
  s->cpu = sb_cpu();
  return 0;
}

/* sb_spawns holds one run's results, one entry per spawn. */
struct sb_spawns {
  int64_t n;
  struct sb_slot *child;
  int *parent_cpu;
  int64_t *before, *created, *joined;
};

/* sb_setup reads "name N" from the command line and allocates the result
 * arrays, returning 0; else it says why on stderr and returns the exit
 * code (2 for bad usage, 1 out of memory). extra bytes per spawn are
 * allocated into *extra (NULL for none). */
static inline int sb_setup(int argc, char **argv, const char *usage, struct sb_spawns *s,
                           size_t extra_per_spawn, void **extra) {
  if (argc != 2 || sb_atoi(argv[1]) <= 0) {
    sb_error(usage, argc);
    return 2;
  }
  int64_t n = sb_atoi(argv[1]);
  /* Each result array is up to n * 16 bytes, which overflows a 32-bit size_t
   * (wasm32) from n = 2^28: refuse rather than wrap. */
  if ((uint64_t)n > SIZE_MAX / sizeof(struct sb_slot)) {
    sb_error("N too large: its result arrays exceed the address space; N", (int)n);
    return 2;
  }
  s->n = n;
  s->child = sb_alloc((size_t)n * sizeof(struct sb_slot));
  s->parent_cpu = sb_alloc((size_t)n * sizeof(int));
  s->before = sb_alloc((size_t)n * sizeof(int64_t));
  s->created = sb_alloc((size_t)n * sizeof(int64_t));
  s->joined = sb_alloc((size_t)n * sizeof(int64_t));
  int extra_ok = 1;
  if (extra) {
    *extra = sb_alloc((size_t)n * extra_per_spawn);
    extra_ok = *extra != 0;
  }
  if (!s->child || !s->parent_cpu || !s->before || !s->created || !s->joined || !extra_ok) {
    sb_error("out of memory for result slots; n", (int)n);
    return 1;
  }
  return 0;
}

/* sb_print_spawns prints the first count spawns, after every join, then
 * each one's call time and a clock sync for tracing. */
static inline void sb_print_spawns(const struct sb_spawns *s, int64_t count) {
  for (int64_t i = 0; i < count; i++)
    sb_print_spawn(s->child[i].at - s->before[i], s->created[i] - s->before[i], s->joined[i] - s->before[i],
                   s->parent_cpu[i], s->child[i].cpu);
  for (int64_t i = 0; i < count; i++)
    sb_print_at(i + 1, s->before[i]);
  if (count > 0)
    sb_print_sync();
  sb_flush();
}

#endif

/*
 * sb.h: the thin platform layer shared by every benchmark in c/.
 *
 * The benchmarks call pthread_create and pthread_join directly (that is the
 * cost being measured) and use the sb_* helpers below for everything else.
 * On hosted targets (native, Emscripten) the helpers are a few lines over
 * libc. On wasm32-wasi-threads, where no threaded libc can be installed,
 * c/wasi/ supplies a small freestanding runtime with the same names.
 *
 * Output protocol, the contract with spawnbench: after all joins, one line
 * per spawn in spawn order, three integers in nanoseconds:
 *     spawn_ns create_ns joined_ns
 *   spawn_ns  = child's first clock reading - parent's reading just before
 *               pthread_create
 *   create_ns = parent's reading when pthread_create returned - same start
 *   joined_ns = parent's reading when pthread_join returned - same start
 * joined_ns brackets spawn_ns from outside the child: a coherent clock gives
 * 0 <= spawn_ns <= joined_ns. Lines starting with '#' are comments.
 */
#ifndef SB_H
#define SB_H

#if defined(__wasm32__) && !defined(__EMSCRIPTEN__)
#include "wasi/sbrt.h"
#else
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

static inline void sb_print1(int64_t a) { printf("%lld\n", (long long)a); }

static inline void sb_flush(void) { fflush(stdout); }

/* sb_error writes one line to stderr: "spawnbench: what: code". */
static inline void sb_error(const char *what, int code) {
  fflush(stdout);
  fprintf(stderr, "spawnbench: %s: %d\n", what, code);
}

static inline int64_t sb_atoi(const char *s) { return strtoll(s, 0, 10); }
#endif

#endif

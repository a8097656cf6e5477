/* chost.h: the C half of the host, the part every spawn goes through. */
#ifndef SPAWNBENCH_CHOST_H
#define SPAWNBENCH_CHOST_H

#include <stddef.h>
#include <stdint.h>

typedef struct sbh_host sbh_host;

/* One imported shared memory of the guest. */
typedef struct sbh_memory {
  const char *module, *name;
  uint64_t min_pages, max_pages;
} sbh_memory;

typedef struct sbh_options {
  /* fresh_threads: a new OS thread per spawn; otherwise finished threads
   * wait to run the next spawn. */
  int fresh_threads;
  /* instantiate_in_parent: make the instance inside thread-spawn. */
  int instantiate_in_parent;
  /* max_threads: live threads beyond which thread-spawn fails; 0: none. */
  int max_threads;
  /* pooling: Wasmtime's pooling instance allocator, sized for
   * pool_instances live instances. */
  int pooling;
  uint32_t pool_instances;
  /* prestart_threads: OS threads started, idle, before _start (reuse
   * only). */
  int prestart_threads;
  /* spin_ns: how long an idle worker polls for a job before it sleeps
   * (reuse only). */
  int64_t spin_ns;
  /* trace: report each spawn's phases on stderr. */
  int trace;
  /* placement: note, per thread, the CPU its parent was on at the first
   * clock read after thread-spawn returned and the CPU it was on at its
   * own first clock read, each after the reading (sbh_placement). */
  int placement;
  /* phases: note, per thread, when its OS thread ran the host's code,
   * its Store and WASI context and its instance were ready, and it first
   * read the monotonic clock, on CLOCK_MONOTONIC (sbh_phases). */
  int phases;
} sbh_options;

/* sbh_new compiles the module and links everything a thread needs. tramp
 * is the poll_oneoff trampoline module (host.go): it imports mems[0] and
 * WASI's poll_oneoff and exports "memory" and "poll". The strings must
 * outlive the host. On failure it returns NULL and a message to free(). */
sbh_host *sbh_new(const uint8_t *wasm, size_t len, const uint8_t *tramp, size_t tramp_len,
                  const sbh_memory *mems, size_t nmems,
                  const char **argv, size_t argc, const char **env_names,
                  const char **env_values, size_t envc, sbh_options opts, char **err);

/* sbh_run runs _start on a new thread and returns the exit code as soon as
 * any thread decides it; other threads may still run. Call it once. */
int sbh_run(sbh_host *h);

/* sbh_spawned is the number of thread ids handed out so far: threads 1
 * to sbh_spawned, in spawn order. */
int sbh_spawned(sbh_host *h);

/* sbh_placement gives thread tid's CPUs as noted with opts.placement:
 * -1 where not (yet) known. Safe while threads still run. */
void sbh_placement(sbh_host *h, int tid, int *parent_cpu, int *child_cpu);

/* SBH_PHASES is the number of times sbh_phases gives. */
#define SBH_PHASES 4

/* sbh_phases gives thread tid's phase ends as noted with opts.phases, in
 * CLOCK_MONOTONIC ns: its OS thread running the host's code, its Store and
 * WASI context ready, its instance ready, its first monotonic clock read;
 * 0 where not (yet) noted. Safe while threads still run. */
void sbh_phases(sbh_host *h, int tid, uint64_t out[SBH_PHASES]);

#endif

/*
 * parallel: create n threads back to back, then join them all.
 * Usage: parallel N
 *
 * Every thread gets its own start-time slot. (Passing one shared loop
 * variable would let a late thread read a later start and look faster.)
 */
#include "sb.h"

/* Each child writes only its own slot: its first clock reading, as its
 * very first action, then its CPU. */
struct slot {
  int64_t at;
  int cpu;
};

static void *child(void *arg) {
  struct slot *s = arg;
  s->at = sb_now_ns();
  s->cpu = sb_cpu();
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2 || sb_atoi(argv[1]) <= 0) {
    sb_error("usage: parallel N (N > 0); argc", argc);
    return 2;
  }
  int64_t n = sb_atoi(argv[1]);
  /* Each result array is up to n * 16 bytes, which overflows a 32-bit size_t
   * (wasm32) from n = 2^28: refuse rather than wrap. */
  if ((uint64_t)n > SIZE_MAX / sizeof(struct slot)) {
    sb_error("N too large: its result arrays exceed the address space; N", (int)n);
    return 2;
  }
  struct slot *child_at = sb_alloc((size_t)n * sizeof(struct slot));
  int *parent_cpu = sb_alloc((size_t)n * sizeof(int));
  int64_t *before = sb_alloc((size_t)n * sizeof(int64_t));
  int64_t *created = sb_alloc((size_t)n * sizeof(int64_t));
  int64_t *joined = sb_alloc((size_t)n * sizeof(int64_t));
  pthread_t *threads = sb_alloc((size_t)n * sizeof(pthread_t));
  if (!child_at || !parent_cpu || !before || !created || !joined || !threads) {
    sb_error("out of memory for result slots; n", (int)n);
    return 1;
  }
  int64_t started = 0;
  int rc = 0;
  for (; started < n; started++) {
    before[started] = sb_now_ns();
    rc = pthread_create(&threads[started], 0, child, &child_at[started]);
    created[started] = sb_now_ns();
    parent_cpu[started] = sb_cpu(); /* after the reading: not in create_ns */
    if (rc != 0) break;
  }
  int64_t joinedCount = 0;
  for (; joinedCount < started; joinedCount++) {
    if (pthread_join(threads[joinedCount], 0) != 0) break;
    joined[joinedCount] = sb_now_ns();
  }
  for (int64_t i = 0; i < joinedCount; i++)
    sb_print_spawn(child_at[i].at - before[i], created[i] - before[i], joined[i] - before[i],
                   parent_cpu[i], child_at[i].cpu);
  sb_flush();
  if (started < n) {
    sb_error("pthread_create failed at spawn", (int)started);
    return 1;
  }
  if (joinedCount < started) {
    sb_error("pthread_join failed at thread", (int)joinedCount);
    return 1;
  }
  return 0;
}

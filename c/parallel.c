/*
 * parallel: create n threads back to back, then join them all.
 * Usage: parallel N
 *
 * Every thread gets its own start-time slot. (Passing one shared loop
 * variable would let a late thread read a later start and look faster.)
 */
#include "sb.h"

int main(int argc, char **argv) {
  struct sb_spawns s;
  pthread_t *threads;
  int status = sb_setup(argc, argv, "usage: parallel N (N > 0); argc", &s, sizeof(pthread_t), (void **)&threads);
  if (status != 0) return status;
  int64_t started = 0;
  int rc = 0;
  for (; started < s.n; started++) {
    s.before[started] = sb_now_ns();
    rc = pthread_create(&threads[started], 0, sb_child, &s.child[started]);
    s.created[started] = sb_now_ns();
    s.parent_cpu[started] = sb_cpu(); /* after the reading: not in create_ns */
    if (rc != 0) break;
  }
  int64_t joined = 0;
  for (; joined < started; joined++) {
    if (pthread_join(threads[joined], 0) != 0) break;
    s.joined[joined] = sb_now_ns();
  }
  sb_print_spawns(&s, joined);
  if (started < s.n) {
    sb_error("pthread_create failed at spawn", (int)started);
    return 1;
  }
  if (joined < started) {
    sb_error("pthread_join failed at thread", (int)joined);
    return 1;
  }
  return 0;
}

/*
 * sequential: spawn n threads one after another, joining each before the
 * next spawn. Usage: sequential N
 */
#include "sb.h"

int main(int argc, char **argv) {
  struct sb_spawns s;
  int status = sb_setup(argc, argv, "usage: sequential N (N > 0); argc", &s, 0, 0);
  if (status != 0) return status;
  int64_t done = 0;
  int rc = 0;
  for (; done < s.n; done++) {
    pthread_t t;
    s.before[done] = sb_now_ns();
    rc = pthread_create(&t, 0, sb_child, &s.child[done]);
    s.created[done] = sb_now_ns();
    s.parent_cpu[done] = sb_cpu(); /* after the reading: not in create_ns */
    if (rc != 0) break;
    rc = pthread_join(t, 0);
    s.joined[done] = sb_now_ns();
    if (rc != 0) break;
  }
  sb_print_spawns(&s, done);
  if (done < s.n) {
    sb_error("pthread_create or pthread_join failed at spawn", (int)done);
    return 1;
  }
  return 0;
}

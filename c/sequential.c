/*
 * sequential: spawn n threads one after another, joining each before the
 * next spawn. Usage: sequential N
 */
#include "sb.h"

/* Each child writes only its own slot, as its very first action. */
static void *child(void *slot) {
  *(int64_t *)slot = sb_now_ns();
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2 || sb_atoi(argv[1]) <= 0) {
    sb_error("usage: sequential N (N > 0); argc", argc);
    return 2;
  }
  int64_t n = sb_atoi(argv[1]);
  /* Each result array is n * 8 bytes, which overflows a 32-bit size_t
   * (wasm32) from n = 2^29: refuse rather than wrap. */
  if ((uint64_t)n > SIZE_MAX / sizeof(int64_t)) {
    sb_error("N too large: its result arrays exceed the address space; N", (int)n);
    return 2;
  }
  int64_t *child_at = sb_alloc((size_t)n * sizeof(int64_t));
  int64_t *before = sb_alloc((size_t)n * sizeof(int64_t));
  int64_t *created = sb_alloc((size_t)n * sizeof(int64_t));
  int64_t *joined = sb_alloc((size_t)n * sizeof(int64_t));
  if (!child_at || !before || !created || !joined) {
    sb_error("out of memory for result slots; n", (int)n);
    return 1;
  }
  int64_t done = 0;
  int rc = 0;
  for (; done < n; done++) {
    pthread_t t;
    before[done] = sb_now_ns();
    rc = pthread_create(&t, 0, child, &child_at[done]);
    created[done] = sb_now_ns();
    if (rc != 0) break;
    rc = pthread_join(t, 0);
    joined[done] = sb_now_ns();
    if (rc != 0) break;
  }
  for (int64_t i = 0; i < done; i++)
    sb_print3(child_at[i] - before[i], created[i] - before[i], joined[i] - before[i]);
  sb_flush();
  if (done < n) {
    sb_error("pthread_create or pthread_join failed at spawn", (int)done);
    return 1;
  }
  return 0;
}

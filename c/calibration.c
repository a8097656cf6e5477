/*
 * calibration: print the clock's resolution and read cost (#clock), then
 * sleep the requested microseconds and print the nanoseconds the
 * benchmark clock saw. Usage: calibration MICROSECONDS
 *
 * spawnbench compares the printed figure with the request and with the
 * process's wall time, so a clock that reads 0 or a fixed step is caught.
 */
#include "sb.h"

/*
 * clock_facts prints the clock's resolution and the cost of one reading,
 * from a few thousand readings back to back: the smallest step between
 * two that differ (a coarsened clock, as a browser's, shows its grain) and
 * the time they took divided by their number.
 */
static void clock_facts(void) {
  enum { READS = 20000 };
  int64_t first = sb_now_ns(), prev = first, step = 0;
  for (int i = 0; i < READS; i++) {
    int64_t t = sb_now_ns();
    if (t > prev && (step == 0 || t - prev < step))
      step = t - prev;
    prev = t;
  }
  sb_print_clock(step, (prev - first) / READS);
}

int main(int argc, char **argv) {
  if (argc != 2 || sb_atoi(argv[1]) < 0) {
    sb_error("usage: calibration MICROSECONDS; argc", argc);
    return 2;
  }
  int64_t us = sb_atoi(argv[1]);
  clock_facts();
  int64_t start = sb_now_ns();
  sb_sleep_us(us);
  sb_print1(sb_now_ns() - start);
  sb_flush();
  return 0;
}

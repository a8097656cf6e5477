/*
 * calibration: sleep the requested microseconds and print the nanoseconds
 * the benchmark clock saw. Usage: calibration MICROSECONDS
 *
 * spawnbench compares the printed figure with the request and with the
 * process's wall time, so a clock that reads 0 or a fixed step is caught.
 */
#include "sb.h"

int main(int argc, char **argv) {
  if (argc != 2 || sb_atoi(argv[1]) < 0) {
    sb_error("usage: calibration MICROSECONDS; argc", argc);
    return 2;
  }
  int64_t us = sb_atoi(argv[1]);
  int64_t start = sb_now_ns();
  sb_sleep_us(us);
  sb_print1(sb_now_ns() - start);
  sb_flush();
  return 0;
}

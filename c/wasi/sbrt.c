/*
 * sbrt.c: the runtime behind sbrt.h. Every WASI call is a raw import; the
 * only state is the heap pointer, the free list of thread blocks and the
 * stdout buffer.
 */
#include "sbrt.h"

#define WASI(name)                                                            \
  __attribute__((import_module("wasi_snapshot_preview1"), import_name(name)))

WASI("args_sizes_get") int32_t wasi_args_sizes_get(size_t *argc, size_t *bytes);
WASI("args_get") int32_t wasi_args_get(char **argv, char *buf);
WASI("fd_write")
int32_t wasi_fd_write(int32_t fd, const void *iovs, size_t n, size_t *written);
WASI("poll_oneoff")
int32_t wasi_poll_oneoff(const void *in, void *out, size_t n, size_t *events);
WASI("proc_exit") _Noreturn void wasi_proc_exit(int32_t code);

__attribute__((import_module("wasi"), import_name("thread-spawn")))
int32_t wasi_thread_spawn(void *arg);

int main(int argc, char **argv);

/* ---- memory ---- */

extern unsigned char __heap_base;

static uintptr_t heap_next; /* 0 until the first allocation */
static int heap_lock;

static void lock(int *l) {
  while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
    __builtin_wasm_memory_atomic_wait32(l, 1, -1);
}

static void unlock(int *l) {
  __atomic_store_n(l, 0, __ATOMIC_RELEASE);
  __builtin_wasm_memory_atomic_notify(l, 1);
}

#define PAGE 65536u
/* Grow in big steps: each memory.grow of a shared memory is a host call,
 * and parallel runs allocate a stack per thread. */
#define MIN_GROW_PAGES 64u

void *sb_alloc(size_t bytes) {
  lock(&heap_lock);
  if (heap_next == 0)
    heap_next = ((uintptr_t)&__heap_base + 15) & ~(uintptr_t)15;
  /* 64-bit arithmetic: a 4 GiB memory is 65536 pages, whose byte size
   * does not fit in wasm32's size_t. */
  uint64_t p = heap_next;
  uint64_t end = p + (((uint64_t)bytes + 15) & ~(uint64_t)15);
  uint64_t have = (uint64_t)__builtin_wasm_memory_size(0) * PAGE;
  if (end > (uint64_t)1 << 32) {
    p = 0; /* beyond the 32-bit address space */
  } else if (end > have) {
    uint64_t need = (end - have + PAGE - 1) / PAGE;
    uint64_t pages = need < MIN_GROW_PAGES ? MIN_GROW_PAGES : need;
    if (__builtin_wasm_memory_grow(0, (size_t)pages) == (size_t)-1 &&
        __builtin_wasm_memory_grow(0, (size_t)need) == (size_t)-1)
      p = 0;
  }
  if (p != 0)
    heap_next = (uintptr_t)end;
  unlock(&heap_lock);
  return (void *)(uintptr_t)p;
}

/* ---- threads ---- */

static struct sbrt_thread *free_threads;
static int free_lock;

/* CANARY is written at the bottom of every thread stack and checked at
 * join: an overflow reaches it before anything outside the region. */
#define CANARY 0x5350574E42454E43ull /* "SPWNBENC" */

/* __wasm_init_tls copies the module's TLS image to a block and points
 * this instance's __tls_base at it; wasm-ld synthesises it. */
extern void __wasm_init_tls(void *block);

static void stack_overflow(struct sbrt_thread *t) {
  sb_error("a thread overflowed its stack (raise the environment's stack_size, or "
           "pthread_attr_setstacksize); its stack in bytes",
           (int)t->stack_size);
  wasi_proc_exit(70);
}

/* new_thread reuses a joined thread's block and stack of the same size
 * when there is one, as glibc reuses cached stacks, so the steady-state
 * spawn path allocates nothing. */
static struct sbrt_thread *new_thread(size_t stack_size) {
  lock(&free_lock);
  struct sbrt_thread **link = &free_threads, *t;
  while ((t = *link) && t->stack_size != stack_size)
    link = &t->next_free;
  if (t)
    *link = t->next_free;
  unlock(&free_lock);
  if (t)
    return t;
  size_t tls_align = __builtin_wasm_tls_align();
  if (tls_align < 16)
    tls_align = 16;
  uint64_t tls_size = ((uint64_t)__builtin_wasm_tls_size() + 15) & ~(uint64_t)15;
  uint64_t block = (sizeof(struct sbrt_thread) + 15) & ~(uint64_t)15;
  /* Region: canary (16 bytes), stack, alignment slack, TLS, block. */
  uint64_t total = 16 + (uint64_t)stack_size + tls_align + tls_size + block;
  if (total > 0xFFFFFFFFu)
    return 0;
  unsigned char *region = sb_alloc((size_t)total);
  if (!region)
    return 0;
  t = (struct sbrt_thread *)(region + total - block);
  uintptr_t tls = ((uintptr_t)t - (uintptr_t)tls_size) & ~(uintptr_t)(tls_align - 1);
  t->tls = (void *)tls;
  t->stack_top = (uint32_t)tls;
  t->stack_size = stack_size;
  t->canary = (uint64_t *)region;
  t->canary[0] = CANARY;
  t->canary[1] = CANARY;
  return t;
}

static void release_thread(struct sbrt_thread *t) {
  lock(&free_lock);
  t->next_free = free_threads;
  free_threads = t;
  unlock(&free_lock);
}

/* sbrt_thread_main runs on the new thread once wasi_thread_start has set
 * its stack pointer; it gives the thread its TLS block before any C code
 * can touch a thread-local. wasi_thread_start then marks it done and
 * wakes the joiner, so no C runs on the stack after a joiner may reuse
 * it. */
void sbrt_thread_main(struct sbrt_thread *t) {
  __wasm_init_tls(t->tls);
  t->result = t->start(t->arg);
}

int pthread_attr_init(pthread_attr_t *attr) {
  attr->stack_size = SBRT_STACK_SIZE;
  return 0;
}

int pthread_attr_destroy(pthread_attr_t *attr) {
  (void)attr;
  return 0;
}

int pthread_attr_setstacksize(pthread_attr_t *attr, size_t size) {
  if (size < PTHREAD_STACK_MIN)
    return 22; /* EINVAL */
  attr->stack_size = (size + 15) & ~(size_t)15;
  return 0;
}

int pthread_attr_getstacksize(const pthread_attr_t *attr, size_t *size) {
  *size = attr->stack_size ? attr->stack_size : SBRT_STACK_SIZE;
  return 0;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                   void *(*start)(void *), void *arg) {
  size_t stack_size = attr && attr->stack_size ? attr->stack_size : SBRT_STACK_SIZE;
  struct sbrt_thread *t = new_thread(stack_size);
  if (!t)
    return 11; /* EAGAIN: no memory for a stack */
  t->done = 0;
  t->start = start;
  t->arg = arg;
  t->result = 0;
  t->next_free = 0;
  if (wasi_thread_spawn(t) < 0) {
    release_thread(t);
    return 11; /* EAGAIN: the host could not spawn */
  }
  *thread = t;
  return 0;
}

int pthread_join(pthread_t t, void **result) {
  while (__atomic_load_n(&t->done, __ATOMIC_ACQUIRE) == 0)
    __builtin_wasm_memory_atomic_wait32(&t->done, 0, -1);
  if (t->canary[0] != CANARY || t->canary[1] != CANARY)
    stack_overflow(t);
  if (result)
    *result = t->result;
  release_thread(t);
  return 0;
}

/* ---- time ---- */

/* WASI preview1 subscription and event layouts, for one relative clock
 * timeout. */
struct subscription {
  uint64_t userdata;
  uint8_t tag; /* 0: clock */
  uint8_t pad[7];
  uint32_t clock_id;
  uint32_t pad2;
  uint64_t timeout;
  uint64_t precision;
  uint16_t flags; /* 0: relative */
  uint8_t pad3[6];
};
_Static_assert(sizeof(struct subscription) == 48, "WASI subscription is 48 bytes");

struct event {
  uint64_t userdata;
  uint16_t error;
  uint8_t type;
  uint8_t pad[21];
};
_Static_assert(sizeof(struct event) == 32, "WASI event is 32 bytes");

void sb_sleep_us(int64_t us) {
  if (us <= 0)
    return;
  struct subscription s = {0};
  s.clock_id = 1; /* CLOCK_MONOTONIC */
  s.timeout = (uint64_t)us * 1000;
  s.precision = 1;
  struct event e;
  size_t n = 0;
  wasi_poll_oneoff(&s, &e, 1, &n);
}

/* ---- output ---- */

struct ciovec {
  const void *buf;
  size_t len;
};

static char out_buf[8192];
static size_t out_len;

static void write_all(int32_t fd, const char *p, size_t n) {
  while (n > 0) {
    struct ciovec v = {p, n};
    size_t w = 0;
    if (wasi_fd_write(fd, &v, 1, &w) != 0 || w == 0)
      return; /* nowhere left to report it */
    p += w;
    n -= w;
  }
}

void sb_flush(void) {
  write_all(1, out_buf, out_len);
  out_len = 0;
}

/* format_int writes v in decimal at p and returns the length (at most 20). */
static size_t format_int(char *p, int64_t v) {
  char tmp[20];
  size_t n = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    tmp[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  size_t len = 0;
  if (v < 0)
    p[len++] = '-';
  while (n)
    p[len++] = tmp[--n];
  return len;
}

static void print_ints(const int64_t *v, int count) {
  if (out_len + 5 * 21 + 1 > sizeof out_buf)
    sb_flush();
  for (int i = 0; i < count; i++) {
    if (i)
      out_buf[out_len++] = ' ';
    out_len += format_int(out_buf + out_len, v[i]);
  }
  out_buf[out_len++] = '\n';
}

void sb_print3(int64_t a, int64_t b, int64_t c) {
  int64_t v[3] = {a, b, c};
  print_ints(v, 3);
}

void sb_print1(int64_t a) { print_ints(&a, 1); }

void sb_print_clock(int64_t step, int64_t read) {
  if (out_len + 8 + 2 * 21 + 1 > sizeof out_buf)
    sb_flush();
  const char *prefix = "#clock ";
  while (*prefix)
    out_buf[out_len++] = *prefix++;
  int64_t v[2] = {step, read};
  print_ints(v, 2);
}

/* print_directive prints "#<name> " then count integers. */
static void print_directive(const char *prefix, const int64_t *v, int count) {
  if (out_len + 8 + 5 * 21 + 1 > sizeof out_buf)
    sb_flush();
  while (*prefix)
    out_buf[out_len++] = *prefix++;
  print_ints(v, count);
}

void sb_print_at(int64_t k, int64_t ns) {
  int64_t v[2] = {k, ns};
  print_directive("#at ", v, 2);
}

void sb_print_sync(void) {
  /* The tightest of a few: WASI's real-time clock between two readings
   * of its monotonic one, which the host may count from an origin of its
   * own. */
  int64_t best[3] = {0, 0, -1};
  for (int i = 0; i < 16; i++) {
    uint64_t a = 0, r = 0, b = 0;
    if (sbrt_clock_time_get(1, 1, &a) != 0 || sbrt_clock_time_get(0, 1, &r) != 0 ||
        sbrt_clock_time_get(1, 1, &b) != 0)
      return;
    if (best[2] < 0 || (int64_t)(b - a) < best[2] - best[0]) {
      best[0] = (int64_t)a;
      best[1] = (int64_t)r;
      best[2] = (int64_t)b;
    }
  }
  print_directive("#sync ", best, 3);
}

void sb_print_spawn(int64_t spawn, int64_t create, int64_t joined, int parent_cpu, int child_cpu) {
  int64_t v[5] = {spawn, create, joined, parent_cpu, child_cpu};
  print_ints(v, parent_cpu < 0 && child_cpu < 0 ? 3 : 5);
}

void sb_error(const char *what, int code) {
  sb_flush();
  char line[512];
  size_t n = 0;
  const char *prefix = "spawnbench: ";
  while (*prefix)
    line[n++] = *prefix++;
  while (*what && n < sizeof line - 24)
    line[n++] = *what++;
  line[n++] = ':';
  line[n++] = ' ';
  n += format_int(line + n, code);
  line[n++] = '\n';
  write_all(2, line, n);
}

int64_t sb_atoi(const char *s) {
  int neg = 0;
  int64_t v = 0;
  while (*s == ' ')
    s++;
  if (*s == '-' || *s == '+')
    neg = *s++ == '-';
  while (*s >= '0' && *s <= '9')
    v = v * 10 + (*s++ - '0');
  return neg ? -v : v;
}

/* ---- entry ---- */

void _start(void) {
  size_t argc = 0, bytes = 0;
  if (wasi_args_sizes_get(&argc, &bytes) != 0)
    wasi_proc_exit(71);
  char **argv = sb_alloc((argc + 1) * sizeof(char *));
  char *buf = sb_alloc(bytes + 1);
  if (!argv || !buf || wasi_args_get(argv, buf) != 0)
    wasi_proc_exit(71);
  int code = main((int)argc, argv);
  sb_flush();
  wasi_proc_exit(code);
}

;; threads.wat: spawnbench's benchmarks on the component model's own
;; threads (the cm-threads payload, engine/env/payload_cm_threads.go).
;; wasm-tools parse makes it a component; a Wasmtime CLI runs it with
;; `-W component-model-threading`:
;;
;;     wasmtime run -W component-model-threading threads.wasm BENCH N
;;
;; BENCH is sequential, parallel or calibration; the output is c/sb.h's
;; line protocol (three fields: a component cannot tell its CPU).
;;
;; A thread here is the component model's: `thread.new-indirect` makes a
;; suspended thread of the same component instance that runs a function of
;; its table; nothing runs it until the current thread switches to it or
;; marks it ready. Wasmtime runs every thread of an instance on one OS
;; thread, one at a time (each on its own fiber): a cooperative thread, not
;; a parallel one. So a spawn here is a thread's creation and a switch of
;; stacks, never an OS thread's start.
;;
;; - sequential: before each spawn the clock is read; the new thread is
;;   made (create_ns ends there) and switched to at once
;;   (`thread.suspend-then-resume`); its first instruction reads the clock
;;   (spawn_ns), it marks the main thread ready and returns, which ends it
;;   and runs the main thread again (joined_ns).
;; - parallel: all n threads are made and each marked ready
;;   (`thread.resume-later`, inside create_ns: with it the thread is
;;   runnable, as a pthread is when pthread_create returns); then the main
;;   thread yields until all n have run, and reads the clock once for
;;   every join.
;; - calibration: the clock's step and read cost, then a busy wait of the
;;   microseconds asked (a sleep would need wasi:io/poll as well), timed.
;;
;; The clock is wasi:clocks/monotonic-clock's `now`, the same clock for
;; every thread (one process, one WASI context). Output goes to
;; wasi:cli/stdout in one write after all the threads have run.
(component $C
  ;; WASI 0.2: only the functions used, declared as Wasmtime defines them.
  (import "wasi:io/error@0.2.0" (instance $io-error
    (export "error" (type (sub resource)))))
  (alias export $io-error "error" (type $error))
  (import "wasi:io/streams@0.2.0" (instance $streams
    (alias outer $C $error (type $error))
    (export "output-stream" (type $output-stream (sub resource)))
    (type $own-error (own $error))
    (type $stream-error (variant (case "last-operation-failed" $own-error) (case "closed")))
    (export "stream-error" (type $stream-error-name (eq $stream-error)))
    (type $write-result (result (error $stream-error-name)))
    (type $borrow-stream (borrow $output-stream))
    (type $bytes (list u8))
    (export "[method]output-stream.blocking-write-and-flush"
      (func (param "self" $borrow-stream) (param "contents" $bytes) (result $write-result)))))
  (alias export $streams "output-stream" (type $output-stream))
  (import "wasi:cli/stdout@0.2.0" (instance $stdout
    (alias outer $C $output-stream (type $output-stream))
    (type $own-stream (own $output-stream))
    (export "get-stdout" (func (result $own-stream)))))
  (import "wasi:cli/stderr@0.2.0" (instance $stderr
    (alias outer $C $output-stream (type $output-stream))
    (type $own-stream (own $output-stream))
    (export "get-stderr" (func (result $own-stream)))))
  (import "wasi:cli/environment@0.2.0" (instance $environment
    (type $strings (list string))
    (export "get-arguments" (func (result $strings)))))
  (import "wasi:clocks/monotonic-clock@0.2.0" (instance $clock
    (type $u64 u64)
    (export "instant" (type $instant (eq $u64)))
    (export "now" (func (result $instant)))))

  ;; The memory, the table of thread start functions and the allocator:
  ;; a module of their own, since the lowered imports the main module
  ;; takes need the memory and the allocator first.
  (core module $Libc
    (memory (export "memory") 1)
    (table (export "table") 1 funcref)
    ;; Below 1024: the main module's scratch and strings.
    (global $heap (mut i32) (i32.const 1024))
    ;; realloc: a bump allocator, since nothing is freed in one run. The
    ;; canonical ABI allocates with old = 0, the main module likewise.
    (func (export "realloc") (param $old i32) (param $old-size i32) (param $align i32)
          (param $size i32) (result i32)
      (local $at i32) (local $end i32) (local $pages i32)
      (local.set $at (i32.and
        (i32.add (global.get $heap) (i32.sub (local.get $align) (i32.const 1)))
        (i32.sub (i32.const 0) (local.get $align))))
      (local.set $end (i32.add (local.get $at) (local.get $size)))
      (if (i32.lt_u (local.get $end) (local.get $at)) (then unreachable))
      (local.set $pages (i32.add (i32.shr_u (local.get $end) (i32.const 16)) (i32.const 1)))
      (if (i32.gt_u (local.get $pages) (memory.size))
        (then (if (i32.eq (memory.grow (i32.sub (local.get $pages) (memory.size))) (i32.const -1))
          (then unreachable))))
      (global.set $heap (local.get $end))
      (local.get $at)))
  (core instance $libc (instantiate $Libc))

  (core func $now (canon lower (func $clock "now")))
  (core func $get-stdout (canon lower (func $stdout "get-stdout")))
  (core func $get-stderr (canon lower (func $stderr "get-stderr")))
  (core func $write (canon lower (func $streams "[method]output-stream.blocking-write-and-flush")
    (memory (core memory $libc "memory"))))
  (core func $get-arguments (canon lower (func $environment "get-arguments")
    (memory (core memory $libc "memory")) (realloc (core func $libc "realloc"))))
  (core type $start-type (func (param i32)))
  (core func $new-indirect (canon thread.new-indirect $start-type (core table $libc "table")))
  (core func $suspend-then-resume (canon thread.suspend-then-resume))
  (core func $resume-later (canon thread.resume-later))
  (core func $yield (canon thread.yield))
  (core func $index (canon thread.index))

  (core module $Main
    (import "libc" "memory" (memory 1))
    (import "libc" "table" (table 1 funcref))
    (import "libc" "realloc" (func $realloc (param i32 i32 i32 i32) (result i32)))
    (import "wasi" "now" (func $now (result i64)))
    (import "wasi" "get-stdout" (func $get-stdout (result i32)))
    (import "wasi" "get-stderr" (func $get-stderr (result i32)))
    (import "wasi" "write" (func $write (param i32 i32 i32 i32)))
    (import "wasi" "get-arguments" (func $get-arguments (param i32)))
    (import "thread" "new-indirect" (func $new-indirect (param i32 i32) (result i32)))
    (import "thread" "suspend-then-resume" (func $suspend-then-resume (param i32) (result i32)))
    (import "thread" "resume-later" (func $resume-later (param i32)))
    (import "thread" "yield" (func $yield (result i32)))
    (import "thread" "index" (func $index (result i32)))

    ;; Fixed addresses: the lowered calls' return areas, strings, and the
    ;; scratch a number's digits are written into backwards.
    (global $args-area i32 (i32.const 0))
    (global $write-area i32 (i32.const 16))
    (data (i32.const 64) "sequential")
    (data (i32.const 80) "parallel")
    (data (i32.const 96) "calibration")
    (data (i32.const 112) "#clock ")
    (data (i32.const 128) "spawnbench: usage: threads.wasm sequential|parallel N (N > 0), or calibration MICROSECONDS\n")
    (data (i32.const 256) "spawnbench: N too large: its output would exceed the address space\n")
    (global $digits-end i32 (i32.const 1000))

    (global $main-thread (mut i32) (i32.const 0))
    (global $sequential (mut i32) (i32.const 0))
    (global $done (mut i32) (i32.const 0))
    ;; One i64 per spawn each: the parent's reading before the spawn,
    ;; after the create, after the join, and the child's first reading.
    (global $before (mut i32) (i32.const 0))
    (global $created (mut i32) (i32.const 0))
    (global $joined (mut i32) (i32.const 0))
    (global $at (mut i32) (i32.const 0))
    (global $out (mut i32) (i32.const 0))
    (global $out-end (mut i32) (i32.const 0))

    ;; Slot 0 of the table: every spawn's start function.
    (elem (i32.const 0) func $child)

    ;; child: a spawned thread. Its first instruction reads the clock into
    ;; its own slot; then it counts itself done and, in sequential mode,
    ;; marks the main thread (suspended while switched away) ready, so that
    ;; returning, which ends this thread, runs the main thread again.
    (func $child (param $spawn i32)
      (local $t i64)
      (local.set $t (call $now))
      (i64.store (call $slot (global.get $at) (local.get $spawn)) (local.get $t))
      (global.set $done (i32.add (global.get $done) (i32.const 1)))
      (if (global.get $sequential)
        (then (call $resume-later (global.get $main-thread)))))

    (func $slot (param $array i32) (param $i i32) (result i32)
      (i32.add (local.get $array) (i32.shl (local.get $i) (i32.const 3))))

    (func $alloc (param $size i32) (result i32)
      (call $realloc (i32.const 0) (i32.const 0) (i32.const 8) (local.get $size)))

    ;; equal: whether the string at (ptr, len) is the len bytes at want.
    (func $equal (param $ptr i32) (param $len i32) (param $want i32) (param $want-len i32) (result i32)
      (if (i32.ne (local.get $len) (local.get $want-len)) (then (return (i32.const 0))))
      (block $differ
        (loop $next
          (if (i32.eqz (local.get $len)) (then (return (i32.const 1))))
          (br_if $differ (i32.ne (i32.load8_u (local.get $ptr)) (i32.load8_u (local.get $want))))
          (local.set $ptr (i32.add (local.get $ptr) (i32.const 1)))
          (local.set $want (i32.add (local.get $want) (i32.const 1)))
          (local.set $len (i32.sub (local.get $len) (i32.const 1)))
          (br $next)))
      (i32.const 0))

    ;; parse: the decimal number at (ptr, len), or -1 when it is not one
    ;; (empty, a sign, another character, or more than 9 digits).
    (func $parse (param $ptr i32) (param $len i32) (result i32)
      (local $v i32) (local $c i32)
      (if (i32.or (i32.eqz (local.get $len)) (i32.gt_u (local.get $len) (i32.const 9)))
        (then (return (i32.const -1))))
      (loop $next
        (local.set $c (i32.sub (i32.load8_u (local.get $ptr)) (i32.const 48)))
        (if (i32.gt_u (local.get $c) (i32.const 9)) (then (return (i32.const -1))))
        (local.set $v (i32.add (i32.mul (local.get $v) (i32.const 10)) (local.get $c)))
        (local.set $ptr (i32.add (local.get $ptr) (i32.const 1)))
        (local.set $len (i32.sub (local.get $len) (i32.const 1)))
        (br_if $next (local.get $len)))
      (local.get $v))

    ;; Output: bytes are appended at $out-end, then written in one go.
    (func $put-byte (param $b i32)
      (i32.store8 (global.get $out-end) (local.get $b))
      (global.set $out-end (i32.add (global.get $out-end) (i32.const 1))))

    (func $put-i64 (param $v i64)
      (local $p i32)
      (if (i64.lt_s (local.get $v) (i64.const 0))
        (then (call $put-byte (i32.const 45))
              (local.set $v (i64.sub (i64.const 0) (local.get $v)))))
      (local.set $p (global.get $digits-end))
      (loop $digit
        (local.set $p (i32.sub (local.get $p) (i32.const 1)))
        (i64.store8 (local.get $p) (i64.add (i64.const 48) (i64.rem_u (local.get $v) (i64.const 10))))
        (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
        (br_if $digit (i64.ne (local.get $v) (i64.const 0))))
      (memory.copy (global.get $out-end) (local.get $p) (i32.sub (global.get $digits-end) (local.get $p)))
      (global.set $out-end (i32.add (global.get $out-end) (i32.sub (global.get $digits-end) (local.get $p)))))

    ;; write-all writes (ptr, len) to a stream in pieces of at most 4096
    ;; bytes (blocking-write-and-flush takes no more); 0 on success.
    (func $write-all (param $stream i32) (param $ptr i32) (param $len i32) (result i32)
      (local $piece i32)
      (block $done
        (loop $next
          (br_if $done (i32.eqz (local.get $len)))
          (local.set $piece (select (i32.const 4096) (local.get $len)
            (i32.gt_u (local.get $len) (i32.const 4096))))
          (call $write (local.get $stream) (local.get $ptr) (local.get $piece) (global.get $write-area))
          (if (i32.load8_u (global.get $write-area)) (then (return (i32.const 1))))
          (local.set $ptr (i32.add (local.get $ptr) (local.get $piece)))
          (local.set $len (i32.sub (local.get $len) (local.get $piece)))
          (br $next)))
      (i32.const 0))

    (func $fail (param $message i32) (param $len i32) (result i32)
      (drop (call $write-all (call $get-stderr) (local.get $message) (local.get $len)))
      (i32.const 1))

    ;; print-spawns: one protocol line per spawn, in spawn order.
    (func $print-spawns (param $n i32) (result i32)
      (local $i i32) (local $start i64)
      (global.set $out (call $alloc (i32.mul (local.get $n) (i32.const 64))))
      (global.set $out-end (global.get $out))
      (block $done
        (loop $next
          (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
          (local.set $start (i64.load (call $slot (global.get $before) (local.get $i))))
          (call $put-i64 (i64.sub (i64.load (call $slot (global.get $at) (local.get $i))) (local.get $start)))
          (call $put-byte (i32.const 32))
          (call $put-i64 (i64.sub (i64.load (call $slot (global.get $created) (local.get $i))) (local.get $start)))
          (call $put-byte (i32.const 32))
          (call $put-i64 (i64.sub (i64.load (call $slot (global.get $joined) (local.get $i))) (local.get $start)))
          (call $put-byte (i32.const 10))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $next)))
      (call $write-all (call $get-stdout) (global.get $out)
        (i32.sub (global.get $out-end) (global.get $out))))

    (func $arrays (param $n i32)
      (global.set $before (call $alloc (i32.shl (local.get $n) (i32.const 3))))
      (global.set $created (call $alloc (i32.shl (local.get $n) (i32.const 3))))
      (global.set $joined (call $alloc (i32.shl (local.get $n) (i32.const 3))))
      (global.set $at (call $alloc (i32.shl (local.get $n) (i32.const 3)))))

    ;; sequential: spawn, switch to the new thread, and be switched back
    ;; when it ends, n times.
    (func $sequential (param $n i32) (result i32)
      (local $i i32) (local $thread i32)
      (global.set $sequential (i32.const 1))
      (call $arrays (local.get $n))
      (block $done
        (loop $next
          (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
          (i64.store (call $slot (global.get $before) (local.get $i)) (call $now))
          (local.set $thread (call $new-indirect (i32.const 0) (local.get $i)))
          (i64.store (call $slot (global.get $created) (local.get $i)) (call $now))
          (drop (call $suspend-then-resume (local.get $thread)))
          (i64.store (call $slot (global.get $joined) (local.get $i)) (call $now))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $next)))
      (call $print-spawns (local.get $n)))

    ;; parallel: make all n threads runnable, then yield until every one
    ;; has run.
    (func $parallel (param $n i32) (result i32)
      (local $i i32) (local $end i64)
      (call $arrays (local.get $n))
      (block $done
        (loop $next
          (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
          (i64.store (call $slot (global.get $before) (local.get $i)) (call $now))
          (call $resume-later (call $new-indirect (i32.const 0) (local.get $i)))
          (i64.store (call $slot (global.get $created) (local.get $i)) (call $now))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $next)))
      (loop $wait
        (if (i32.lt_u (global.get $done) (local.get $n))
          (then (drop (call $yield)) (br $wait))))
      (local.set $end (call $now))
      (local.set $i (i32.const 0))
      (block $done
        (loop $next
          (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
          (i64.store (call $slot (global.get $joined) (local.get $i)) (local.get $end))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $next)))
      (call $print-spawns (local.get $n)))

    ;; calibration: as c/calibration.c, with a busy wait for the sleep.
    (func $calibration (param $us i32) (result i32)
      (local $i i32) (local $first i64) (local $prev i64) (local $t i64) (local $step i64)
      (local $start i64) (local $wait i64)
      (local.set $first (call $now))
      (local.set $prev (local.get $first))
      (loop $read
        (local.set $t (call $now))
        (if (i32.and (i64.gt_s (local.get $t) (local.get $prev))
                     (i32.or (i64.eqz (local.get $step))
                             (i64.lt_s (i64.sub (local.get $t) (local.get $prev)) (local.get $step))))
          (then (local.set $step (i64.sub (local.get $t) (local.get $prev)))))
        (local.set $prev (local.get $t))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $read (i32.lt_u (local.get $i) (i32.const 20000))))
      (global.set $out (call $alloc (i32.const 128)))
      (global.set $out-end (global.get $out))
      (memory.copy (global.get $out-end) (i32.const 112) (i32.const 7))
      (global.set $out-end (i32.add (global.get $out-end) (i32.const 7)))
      (call $put-i64 (local.get $step))
      (call $put-byte (i32.const 32))
      (call $put-i64 (i64.div_s (i64.sub (local.get $prev) (local.get $first)) (i64.const 20000)))
      (call $put-byte (i32.const 10))
      (local.set $wait (i64.mul (i64.extend_i32_u (local.get $us)) (i64.const 1000)))
      (local.set $start (call $now))
      (loop $spin
        (local.set $t (call $now))
        (br_if $spin (i64.lt_s (i64.sub (local.get $t) (local.get $start)) (local.get $wait))))
      (call $put-i64 (i64.sub (local.get $t) (local.get $start)))
      (call $put-byte (i32.const 10))
      (call $write-all (call $get-stdout) (global.get $out)
        (i32.sub (global.get $out-end) (global.get $out))))

    ;; run: wasi:cli/run's run; 0 is ok, 1 is an error (exit status 1).
    (func (export "run") (result i32)
      (local $argv i32) (local $bench i32) (local $bench-len i32) (local $n i32)
      (global.set $main-thread (call $index))
      (call $get-arguments (global.get $args-area))
      ;; arguments: the program's name, BENCH, N
      (if (i32.ne (i32.load offset=4 (global.get $args-area)) (i32.const 3))
        (then (return (call $fail (i32.const 128) (i32.const 91)))))
      (local.set $argv (i32.load (global.get $args-area)))
      (local.set $bench (i32.load offset=8 (local.get $argv)))
      (local.set $bench-len (i32.load offset=12 (local.get $argv)))
      (local.set $n (call $parse (i32.load offset=16 (local.get $argv)) (i32.load offset=20 (local.get $argv))))
      (if (i32.lt_s (local.get $n) (i32.const 0))
        (then (return (call $fail (i32.const 128) (i32.const 91)))))
      (if (call $equal (local.get $bench) (local.get $bench-len) (i32.const 96) (i32.const 11))
        (then (return (call $calibration (local.get $n)))))
      (if (i32.eqz (local.get $n))
        (then (return (call $fail (i32.const 128) (i32.const 91)))))
      ;; 64 bytes of output and 32 of results per spawn within 4 GiB.
      (if (i32.gt_u (local.get $n) (i32.const 16777216))
        (then (return (call $fail (i32.const 256) (i32.const 67)))))
      (if (call $equal (local.get $bench) (local.get $bench-len) (i32.const 64) (i32.const 10))
        (then (return (call $sequential (local.get $n)))))
      (if (call $equal (local.get $bench) (local.get $bench-len) (i32.const 80) (i32.const 8))
        (then (return (call $parallel (local.get $n)))))
      (call $fail (i32.const 128) (i32.const 91))))

  (core instance $main (instantiate $Main
    (with "libc" (instance $libc))
    (with "wasi" (instance
      (export "now" (func $now))
      (export "get-stdout" (func $get-stdout))
      (export "get-stderr" (func $get-stderr))
      (export "write" (func $write))
      (export "get-arguments" (func $get-arguments))))
    (with "thread" (instance
      (export "new-indirect" (func $new-indirect))
      (export "suspend-then-resume" (func $suspend-then-resume))
      (export "resume-later" (func $resume-later))
      (export "yield" (func $yield))
      (export "index" (func $index))))))

  (func $run (result (result)) (canon lift (core func $main "run")))
  (instance $run-instance (export "run" (func $run)))
  (export "wasi:cli/run@0.2.0" (instance $run-instance)))

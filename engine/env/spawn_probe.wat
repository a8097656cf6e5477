;; The probe of a runtime's wasi-threads (runSpawnProbe in shared.go, for
;; the wamr and wasmer hosts): one wasi-threads spawn, whose thread sets a
;; flag the main thread waits for. Exit status 0: the thread ran; 3:
;; thread-spawn refused; 4: the thread did not run within 10 s. A runtime
;; without wasi-threads fails to load it (no shared memory) or to call
;; thread-spawn. spawn_probe.wasm is this file assembled:
;; wat2wasm --enable-threads spawn_probe.wat -o spawn_probe.wasm
;; (wamr_test.go checks that the two agree).
(module
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "env" "memory" (memory 1 1 shared))
  (export "memory" (memory 0))
  (func (export "wasi_thread_start") (param i32 i32)
    (i32.atomic.store (i32.const 0) (i32.const 1))
    (drop (memory.atomic.notify (i32.const 0) (i32.const 1))))
  (func (export "_start")
    (if (i32.lt_s (call $spawn (i32.const 0)) (i32.const 1))
      (then (call $exit (i32.const 3))))
    (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const 10000000000)))
    (call $exit (select (i32.const 0) (i32.const 4) (i32.atomic.load (i32.const 0))))))

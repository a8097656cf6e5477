;; The wasmtime-cm host's probe of a Wasmtime CLI (host_wasmtime_cm.go): a
;; component that makes one thread with thread.new-indirect and switches
;; to it; the thread sets a flag and marks the main thread ready. Exit
;; status 0: the thread ran; 1: it did not. A CLI without the component
;; model's threads refuses the component (46 lists the flag but not this
;; encoding of the builtins) or the flag. It imports nothing, so the probe
;; needs no WASI. cm_probe.wasm is this file made a component:
;; wasm-tools parse cm_probe.wat -o cm_probe.wasm (cmthreads_test.go checks
;; that the two agree).
(component
  (core module $Libc
    (table (export "table") 1 funcref))
  (core instance $libc (instantiate $Libc))
  (core type $start-type (func (param i32)))
  (core func $new-indirect (canon thread.new-indirect $start-type (core table $libc "table")))
  (core func $suspend-then-resume (canon thread.suspend-then-resume))
  (core func $resume-later (canon thread.resume-later))
  (core func $index (canon thread.index))
  (core module $Main
    (import "libc" "table" (table 1 funcref))
    (import "thread" "new-indirect" (func $new-indirect (param i32 i32) (result i32)))
    (import "thread" "suspend-then-resume" (func $suspend-then-resume (param i32) (result i32)))
    (import "thread" "resume-later" (func $resume-later (param i32)))
    (import "thread" "index" (func $index (result i32)))
    (global $main-thread (mut i32) (i32.const 0))
    (global $ran (mut i32) (i32.const 0))
    (elem (i32.const 0) func $child)
    (func $child (param i32)
      (global.set $ran (i32.const 1))
      (call $resume-later (global.get $main-thread)))
    (func (export "run") (result i32)
      (global.set $main-thread (call $index))
      (drop (call $suspend-then-resume (call $new-indirect (i32.const 0) (i32.const 0))))
      (i32.eqz (global.get $ran))))
  (core instance $main (instantiate $Main
    (with "libc" (instance $libc))
    (with "thread" (instance
      (export "new-indirect" (func $new-indirect))
      (export "suspend-then-resume" (func $suspend-then-resume))
      (export "resume-later" (func $resume-later))
      (export "index" (func $index))))))
  (func $run (result (result)) (canon lift (core func $main "run")))
  (instance $run-instance (export "run" (func $run)))
  (export "wasi:cli/run@0.2.0" (instance $run-instance)))

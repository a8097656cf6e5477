# thread_start.s: the wasi-threads entry point of every new thread.
#
# It is assembly because the first thing a thread does must be to point
# __stack_pointer (a per-instance global) at its own stack: until then the
# instance's copy still points at the main thread's stack, and any C code
# would use it. Marking the thread done also happens here, after the C start
# routine has returned, so the joiner may reuse the stack at once.
#
# arg points at a struct sbrt_thread (sbrt.h): offset 0 is the stack top,
# offset 4 the done flag.

	.text
	.globaltype __stack_pointer, i32
	.functype sbrt_thread_main (i32) -> ()

	.globl wasi_thread_start
	.export_name wasi_thread_start, wasi_thread_start
	.type wasi_thread_start,@function
wasi_thread_start:
	.functype wasi_thread_start (i32, i32) -> ()
	local.get 1
	i32.load 0
	global.set __stack_pointer
	local.get 1
	call sbrt_thread_main
	local.get 1
	i32.const 1
	i32.atomic.store 4
	local.get 1
	i32.const -1
	memory.atomic.notify 4
	drop
	end_function

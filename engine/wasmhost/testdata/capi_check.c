/*
 * capi_check.c: compiled (never linked) by TestCAPIMatchesWasmtimeHeaders
 * with wasmtime-go's bundled include directory. The real headers come
 * first; capi.h then redeclares every function it uses, which the compiler
 * rejects if a signature differs, and its hand-written layouts, renamed,
 * are compared with the real ones here.
 */
#include <stddef.h>
#include <wasmtime.h>

#define SBH_CAPI_CHECK
#include "../capi.h"

#define SAME_SIZE(t) _Static_assert(sizeof(sbh_check_##t) == sizeof(t), #t " size")
#define SAME_FIELD(t, f)                                                                      \
  _Static_assert(offsetof(sbh_check_##t, f) == offsetof(t, f) &&                              \
                     sizeof(((sbh_check_##t *)0)->f) == sizeof(((t *)0)->f),                  \
                 #t "." #f)
#define SAME_VALUE(c) _Static_assert(sbh_check_##c == c, #c)

SAME_SIZE(wasm_byte_vec_t);
SAME_FIELD(wasm_byte_vec_t, size);
SAME_FIELD(wasm_byte_vec_t, data);
SAME_SIZE(wasm_valtype_vec_t);
SAME_FIELD(wasm_valtype_vec_t, size);
SAME_FIELD(wasm_valtype_vec_t, data);
SAME_SIZE(wasmtime_func_t);
SAME_FIELD(wasmtime_func_t, store_id);
SAME_SIZE(wasmtime_instance_t);
SAME_FIELD(wasmtime_instance_t, store_id);
SAME_SIZE(wasmtime_extern_t);
SAME_FIELD(wasmtime_extern_t, kind);
SAME_FIELD(wasmtime_extern_t, of);
SAME_FIELD(wasmtime_extern_t, of.func);
SAME_FIELD(wasmtime_extern_t, of.sharedmemory);
SAME_SIZE(wasmtime_val_raw_t);
SAME_FIELD(wasmtime_val_raw_t, i32);
SAME_FIELD(wasmtime_val_raw_t, i64);
SAME_VALUE(WASM_I32);
SAME_VALUE(WASM_I64);
SAME_VALUE(WASMTIME_EXTERN_FUNC);
SAME_VALUE(WASMTIME_EXTERN_SHAREDMEMORY);

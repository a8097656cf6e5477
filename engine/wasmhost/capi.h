/*
 * capi.h: the part of Wasmtime's C API (v39) that the host uses, declared
 * here by its documented signatures because wasmtime-go, whose static
 * libwasmtime provides the symbols, does not export its headers' location
 * to other packages. Keep this in step with the wasmtime-go version in
 * go.mod. TestCAPIMatchesWasmtimeHeaders compiles testdata/capi_check.c,
 * which includes Wasmtime's real headers and then this file with
 * SBH_CAPI_CHECK defined: every function declared here must then agree
 * with the real declaration, and every layout below (renamed by
 * SBH_LAYOUT so both can coexist) is compared member by member.
 */
#ifndef SPAWNBENCH_CAPI_H
#define SPAWNBENCH_CAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef SBH_CAPI_CHECK
#define SBH_LAYOUT(name) sbh_check_##name
#else
#define SBH_LAYOUT(name) name
#endif

typedef struct wasm_config_t wasm_config_t;
typedef struct wasm_engine_t wasm_engine_t;
typedef struct wasm_valtype_t wasm_valtype_t;
typedef struct wasm_functype_t wasm_functype_t;
typedef struct wasm_memorytype_t wasm_memorytype_t;
typedef struct wasm_trap_t wasm_trap_t;
typedef struct wasmtime_error wasmtime_error_t;
typedef struct wasmtime_module wasmtime_module_t;
typedef struct wasmtime_linker wasmtime_linker_t;
typedef struct wasmtime_store wasmtime_store_t;
typedef struct wasmtime_context wasmtime_context_t;
typedef struct wasmtime_caller wasmtime_caller_t;
typedef struct wasmtime_instance_pre wasmtime_instance_pre_t;
typedef struct wasmtime_sharedmemory wasmtime_sharedmemory_t;
typedef struct wasmtime_pooling_allocation_config_t wasmtime_pooling_allocation_config_t;
typedef struct wasi_config_t wasi_config_t;

typedef struct SBH_LAYOUT(wasm_byte_vec_t) {
  size_t size;
  char *data;
} SBH_LAYOUT(wasm_byte_vec_t);

typedef struct SBH_LAYOUT(wasm_valtype_vec_t) {
  size_t size;
  wasm_valtype_t **data;
} SBH_LAYOUT(wasm_valtype_vec_t);

enum { SBH_LAYOUT(WASM_I32) = 0, SBH_LAYOUT(WASM_I64) = 1 };

typedef struct SBH_LAYOUT(wasmtime_func) {
  uint64_t store_id;
  void *private_;
} SBH_LAYOUT(wasmtime_func_t);

typedef struct SBH_LAYOUT(wasmtime_instance) {
  uint64_t store_id;
  size_t private_;
} SBH_LAYOUT(wasmtime_instance_t);

enum { SBH_LAYOUT(WASMTIME_EXTERN_FUNC) = 0, SBH_LAYOUT(WASMTIME_EXTERN_SHAREDMEMORY) = 4 };

typedef struct SBH_LAYOUT(wasmtime_extern) {
  uint8_t kind;
  union {
    SBH_LAYOUT(wasmtime_func_t) func;
    wasmtime_sharedmemory_t *sharedmemory;
    struct { uint64_t store_id; uint32_t private_[3]; } global; /* the largest member */
  } of;
} SBH_LAYOUT(wasmtime_extern_t);

typedef union SBH_LAYOUT(wasmtime_val_raw) {
  int32_t i32;
  int64_t i64;
  uint8_t v128[16];
  void *funcref;
} SBH_LAYOUT(wasmtime_val_raw_t);

typedef wasm_trap_t *(*wasmtime_func_unchecked_callback_t)(
    void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *args_and_results,
    size_t num_args_and_results);

wasm_config_t *wasm_config_new(void);
void wasmtime_config_wasm_threads_set(wasm_config_t *, bool);
wasmtime_pooling_allocation_config_t *wasmtime_pooling_allocation_config_new(void);
void wasmtime_pooling_allocation_config_delete(wasmtime_pooling_allocation_config_t *);
void wasmtime_pooling_allocation_config_total_core_instances_set(wasmtime_pooling_allocation_config_t *, uint32_t);
void wasmtime_pooling_allocation_config_total_tables_set(wasmtime_pooling_allocation_config_t *, uint32_t);
void wasmtime_pooling_allocation_config_total_memories_set(wasmtime_pooling_allocation_config_t *, uint32_t);
void wasmtime_pooling_allocation_config_max_memories_per_module_set(wasmtime_pooling_allocation_config_t *, uint32_t);
void wasmtime_pooling_allocation_config_table_keep_resident_set(wasmtime_pooling_allocation_config_t *, size_t);
void wasmtime_pooling_allocation_config_decommit_batch_size_set(wasmtime_pooling_allocation_config_t *, size_t);
void wasmtime_pooling_allocation_strategy_set(wasm_config_t *, const wasmtime_pooling_allocation_config_t *);
wasm_engine_t *wasm_engine_new_with_config(wasm_config_t *);

wasmtime_error_t *wasmtime_module_new(wasm_engine_t *, const uint8_t *wasm, size_t len, wasmtime_module_t **ret);

wasm_valtype_t *wasm_valtype_new(uint8_t kind);
void wasm_valtype_vec_new(wasm_valtype_vec_t *out, size_t, wasm_valtype_t *const[]);
wasm_functype_t *wasm_functype_new(wasm_valtype_vec_t *params, wasm_valtype_vec_t *results);
void wasm_functype_delete(wasm_functype_t *);
wasmtime_error_t *wasmtime_memorytype_new(uint64_t min, bool max_present, uint64_t max, bool is_64,
                                          bool shared, uint8_t page_size_log2, wasm_memorytype_t **ret);
void wasm_memorytype_delete(wasm_memorytype_t *);
wasmtime_error_t *wasmtime_sharedmemory_new(const wasm_engine_t *, const wasm_memorytype_t *,
                                            wasmtime_sharedmemory_t **ret);
uint8_t *wasmtime_sharedmemory_data(const wasmtime_sharedmemory_t *);
size_t wasmtime_sharedmemory_data_size(const wasmtime_sharedmemory_t *);

wasmtime_linker_t *wasmtime_linker_new(wasm_engine_t *);
void wasmtime_linker_allow_shadowing(wasmtime_linker_t *, bool);
wasmtime_error_t *wasmtime_linker_define(wasmtime_linker_t *, wasmtime_context_t *, const char *module,
                                         size_t module_len, const char *name, size_t name_len,
                                         const wasmtime_extern_t *item);
wasmtime_error_t *wasmtime_linker_define_func_unchecked(wasmtime_linker_t *, const char *module, size_t module_len,
                                                        const char *name, size_t name_len, const wasm_functype_t *ty,
                                                        wasmtime_func_unchecked_callback_t cb, void *data,
                                                        void (*finalizer)(void *));
wasmtime_error_t *wasmtime_linker_define_wasi(wasmtime_linker_t *);
wasmtime_error_t *wasmtime_linker_instantiate_pre(const wasmtime_linker_t *, const wasmtime_module_t *,
                                                  wasmtime_instance_pre_t **ret);

wasmtime_store_t *wasmtime_store_new(wasm_engine_t *, void *data, void (*finalizer)(void *));
wasmtime_context_t *wasmtime_store_context(wasmtime_store_t *);
void wasmtime_store_delete(wasmtime_store_t *);
wasmtime_error_t *wasmtime_context_set_wasi(wasmtime_context_t *, wasi_config_t *);

wasi_config_t *wasi_config_new(void);
bool wasi_config_set_argv(wasi_config_t *, size_t argc, const char *argv[]);
bool wasi_config_set_env(wasi_config_t *, size_t envc, const char *names[], const char *values[]);
void wasi_config_inherit_stdin(wasi_config_t *);
void wasi_config_inherit_stdout(wasi_config_t *);
void wasi_config_inherit_stderr(wasi_config_t *);

wasmtime_error_t *wasmtime_instance_new(wasmtime_context_t *, const wasmtime_module_t *,
                                        const wasmtime_extern_t *imports, size_t nimports,
                                        wasmtime_instance_t *instance, wasm_trap_t **trap);
wasmtime_error_t *wasmtime_instance_pre_instantiate(const wasmtime_instance_pre_t *, wasmtime_context_t *,
                                                    wasmtime_instance_t *instance, wasm_trap_t **trap);
bool wasmtime_instance_export_get(wasmtime_context_t *, const wasmtime_instance_t *, const char *name,
                                  size_t name_len, wasmtime_extern_t *item);
wasmtime_error_t *wasmtime_func_call_unchecked(wasmtime_context_t *, const wasmtime_func_t *,
                                               wasmtime_val_raw_t *args_and_results, size_t len,
                                               wasm_trap_t **trap);

void wasmtime_error_message(const wasmtime_error_t *, wasm_byte_vec_t *message);
bool wasmtime_error_exit_status(const wasmtime_error_t *, int *status);
void wasmtime_error_delete(wasmtime_error_t *);
void wasm_trap_message(const wasm_trap_t *, wasm_byte_vec_t *message);
void wasm_trap_delete(wasm_trap_t *);
typedef uint8_t wasmtime_trap_code_t;
wasm_trap_t *wasmtime_trap_new(const char *msg, size_t msg_len);
bool wasmtime_trap_code(const wasm_trap_t *, wasmtime_trap_code_t *code);
wasmtime_context_t *wasmtime_caller_context(wasmtime_caller_t *);
void *wasmtime_context_get_data(const wasmtime_context_t *);
bool wasmtime_linker_get(const wasmtime_linker_t *, wasmtime_context_t *, const char *module, size_t module_len,
                         const char *name, size_t name_len, wasmtime_extern_t *item);
void wasmtime_sharedmemory_delete(wasmtime_sharedmemory_t *);
void wasm_byte_vec_delete(wasm_byte_vec_t *);

#endif

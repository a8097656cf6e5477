package wazerohost

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// memoryImport is the guest's imported memory.
type memoryImport struct {
	module, name string
	min, max     uint32
}

// checkShape rejects, with a reason, a module that cannot run as a
// wasi-threads program, before anything is instantiated: the same rules
// as the embedded Wasmtime host's, read through wazero's reflection.
func checkShape(code wazero.CompiledModule) (memoryImport, error) {
	var mem memoryImport
	mems := code.ImportedMemories()
	if len(mems) == 0 {
		return mem, errors.New("it imports no shared memory (link with --import-memory --shared-memory)")
	}
	m := mems[0]
	mem.module, mem.name, _ = m.Import()
	mem.min = m.Min()
	max, bounded := m.Max()
	if !bounded {
		return mem, fmt.Errorf("memory import %s.%s has no maximum, which a shared memory needs (link with --max-memory)", mem.module, mem.name)
	}
	mem.max = max
	spawns := false
	for _, f := range code.ImportedFunctions() {
		module, name, _ := f.Import()
		switch {
		case module == "wasi" && name == "thread-spawn":
			spawns = true
		case module == "wasi_snapshot_preview1":
			// WASI preview1 defines these; instantiation checks names and types.
		default:
			return mem, fmt.Errorf("import %s.%s is neither WASI preview1 nor wasi.thread-spawn", module, name)
		}
	}
	if _, ok := code.ExportedMemories()["memory"]; !ok {
		// WASI preview1 reaches guest memory through this export.
		return mem, errors.New(`it does not export its memory as "memory" (link with --export-memory)`)
	}
	funcs := code.ExportedFunctions()
	if f, ok := funcs["_start"]; !ok {
		return mem, errors.New("it exports no _start function")
	} else if len(f.ParamTypes()) != 0 || len(f.ResultTypes()) != 0 {
		return mem, errors.New("its _start is not a function () -> ()")
	}
	if spawns {
		f, ok := funcs["wasi_thread_start"]
		if !ok {
			return mem, errors.New("it imports wasi.thread-spawn but exports no wasi_thread_start function")
		}
		i32 := []api.ValueType{api.ValueTypeI32, api.ValueTypeI32}
		if !slices.Equal(f.ParamTypes(), i32) || len(f.ResultTypes()) != 0 {
			return mem, errors.New("its wasi_thread_start is not a function (i32, i32) -> ()")
		}
	}
	return mem, nil
}

// sharedMemoryModule is the binary of a module that defines one shared
// memory with mem's limits and exports it under mem's name.
func sharedMemoryModule(mem memoryImport) []byte {
	uleb := func(b []byte, v uint32) []byte { return binary.AppendUvarint(b, uint64(v)) }
	section := func(b []byte, id byte, body []byte) []byte {
		return append(uleb(append(b, id), uint32(len(body))), body...)
	}
	// One memory: flags 3 (has a maximum, shared), min, max.
	memories := uleb(uleb([]byte{1, 3}, mem.min), mem.max)
	// One export: its name, kind 2 (memory), index 0.
	exports := append(append(uleb([]byte{1}, uint32(len(mem.name))), mem.name...), 2, 0)
	out := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	out = section(out, 5, memories)
	return section(out, 7, exports)
}

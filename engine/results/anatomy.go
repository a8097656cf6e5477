package results

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// A traced process's spawns carry the kernel's own events of each new
// task (task_newtask, sched_wakeup_new, its first sched_switch in), as
// offsets from the same start as spawn_ns, so that a spawn splits into
// the work before the new task, the kernel's, the scheduler's and the new
// thread's own (engine/report's anatomy). The columns are kept apart from
// the rest of the schema here, appended after the older ones: sets
// written before them read them as null (not traced), and the order of
// the older columns does not move.

func init() {
	sampleColumns = append(sampleColumns,
		addedLater(optInt64Col("task_new_ns", func(r *SpawnSample) **int64 { return &r.TaskNewNS })).doc("when the kernel created the spawn's new task (task_newtask), ns after the same start as spawn_ns; null where the process was not traced or no new task was seen"),
		addedLater(optInt64Col("task_wakeup_ns", func(r *SpawnSample) **int64 { return &r.TaskWakeupNS })).doc("the new task's first wake-up (sched_wakeup_new), ns after the same start as spawn_ns; null where not traced"),
		addedLater(optInt64Col("task_first_run_ns", func(r *SpawnSample) **int64 { return &r.TaskFirstRunNS })).doc("the new task's first switch-in (sched_switch), ns after the same start as spawn_ns; null where not traced"),
		addedLater(optInt32Col("task_first_cpu", func(r *SpawnSample) **int32 { return &r.TaskFirstCPU })).doc("the CPU the new task first ran on; beside parent_cpu it says where the scheduler started the child; null where not traced"),
		addedLater(optBoolCol("new_os_thread", func(r *SpawnSample) **bool { return &r.NewOSThread })).doc("true when the kernel made a new task for this spawn, false when the traced process made none (a reused worker, a pool, a goroutine); null where not traced"),
	)
	runColumns = append(runColumns,
		addedLater(boolCol("traced", func(r *ProcessRun) *bool { return &r.Traced })).doc("true when the process's spawns were traced in the kernel (the spec's anatomy block: its environment's @traced twin); false for the rest, and in sets older than the column"),
		addedLater(optStringCol("trace_note", func(r *ProcessRun) *string { return &r.TraceNote })).doc("why a process that was to be traced was not (no root, no tracefs), in words; null where it was traced or was not to be"),
	)
}

// Traced is true when the spawn's kernel events were recorded: its
// process was traced (NewOSThread is set either way there).
func (s SpawnSample) Traced() bool { return s.NewOSThread != nil }

// optBoolCol stores nil as null.
func optBoolCol[T any](name string, f func(*T) **bool) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		put: func(b array.Builder, r *T) {
			if v := *f(r); v != nil {
				b.(*array.BooleanBuilder).Append(*v)
			} else {
				b.AppendNull()
			}
		},
		get: func(a arrow.Array, i int, r *T) {
			if a.IsNull(i) {
				*f(r) = nil
				return
			}
			v := a.(*array.Boolean).Value(i)
			*f(r) = &v
		},
	}
}

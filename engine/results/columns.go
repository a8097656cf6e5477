package results

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// column maps one field of a row type T to one Arrow column, both ways, so
// each table's layout is written down once and used by writer and reader.
type column[T any] struct {
	field arrow.Field
	put   func(b array.Builder, row *T)
	get   func(a arrow.Array, i int, row *T)
	// absentOK: a file written before the column existed lacks it, and
	// its rows read as the zero value (null for a nullable column).
	absentOK bool
	// description says what the column holds, for readers: it travels in
	// the file as the field's "description" metadata (pyarrow shows it)
	// and is the text of docs/results.md's column tables.
	description string
}

// doc gives a column its description.
func (c column[T]) doc(description string) column[T] {
	c.description = description
	return c
}

// addedLater marks a column that older sets lack.
func addedLater[T any](c column[T]) column[T] {
	c.absentOK = true
	return c
}

func stringCol[T any](name string, f func(*T) *string) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.BinaryTypes.String},
		put:   func(b array.Builder, r *T) { b.(*array.StringBuilder).Append(*f(r)) },
		get:   func(a arrow.Array, i int, r *T) { *f(r) = a.(*array.String).Value(i) },
	}
}

func int32Col[T any](name string, f func(*T) *int32) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int32},
		put:   func(b array.Builder, r *T) { b.(*array.Int32Builder).Append(*f(r)) },
		get:   func(a arrow.Array, i int, r *T) { *f(r) = a.(*array.Int32).Value(i) },
	}
}

func int64Col[T any](name string, f func(*T) *int64) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64},
		put:   func(b array.Builder, r *T) { b.(*array.Int64Builder).Append(*f(r)) },
		get:   func(a arrow.Array, i int, r *T) { *f(r) = a.(*array.Int64).Value(i) },
	}
}

// optInt64Col stores nil as null.
func optInt64Col[T any](name string, f func(*T) **int64) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		put: func(b array.Builder, r *T) {
			if v := *f(r); v != nil {
				b.(*array.Int64Builder).Append(*v)
			} else {
				b.AppendNull()
			}
		},
		get: func(a arrow.Array, i int, r *T) {
			if a.IsNull(i) {
				*f(r) = nil
				return
			}
			v := a.(*array.Int64).Value(i)
			*f(r) = &v
		},
	}
}

// optFloat64PtrCol stores nil as null.
func optFloat64PtrCol[T any](name string, f func(*T) **float64) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		put: func(b array.Builder, r *T) {
			if v := *f(r); v != nil {
				b.(*array.Float64Builder).Append(*v)
			} else {
				b.AppendNull()
			}
		},
		get: func(a arrow.Array, i int, r *T) {
			if a.IsNull(i) {
				*f(r) = nil
				return
			}
			v := a.(*array.Float64).Value(i)
			*f(r) = &v
		},
	}
}

// optInt32Col stores nil as null.
func optInt32Col[T any](name string, f func(*T) **int32) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		put: func(b array.Builder, r *T) {
			if v := *f(r); v != nil {
				b.(*array.Int32Builder).Append(*v)
			} else {
				b.AppendNull()
			}
		},
		get: func(a arrow.Array, i int, r *T) {
			if a.IsNull(i) {
				*f(r) = nil
				return
			}
			v := a.(*array.Int32).Value(i)
			*f(r) = &v
		},
	}
}

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

func boolCol[T any](name string, f func(*T) *bool) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.FixedWidthTypes.Boolean},
		put:   func(b array.Builder, r *T) { b.(*array.BooleanBuilder).Append(*f(r)) },
		get:   func(a arrow.Array, i int, r *T) { *f(r) = a.(*array.Boolean).Value(i) },
	}
}

// dictStringCol stores a string as an Arrow dictionary (int32 indices
// into the distinct values): a column such as machine repeats a handful
// of values over millions of rows, and pandas, polars and DuckDB read it
// as a categorical or plain string column. A plain string column (a set
// written before the column was dictionary-encoded) reads too.
func dictStringCol[T any](name string, f func(*T) *string) column[T] {
	typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	return column[T]{
		field: arrow.Field{Name: name, Type: typ},
		put: func(b array.Builder, r *T) {
			// Appending a string to a string dictionary cannot fail.
			_ = b.(*array.BinaryDictionaryBuilder).AppendString(*f(r))
		},
		get: func(a arrow.Array, i int, r *T) {
			switch a := a.(type) {
			case *array.Dictionary:
				*f(r) = a.Dictionary().(*array.String).Value(a.GetValueIndex(i))
			case *array.String:
				*f(r) = a.Value(i)
			}
		},
	}
}

// schemaOf builds the Arrow schema of a table, each field carrying its
// description.
func schemaOf[T any](cols []column[T]) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = c.field
		if c.description != "" {
			fields[i].Metadata = arrow.NewMetadata([]string{"description"}, []string{c.description})
		}
	}
	return arrow.NewSchema(fields, nil)
}

// optStringCol stores "" as null: a value that is absent, not empty
// (a process that ended by no signal has no signal).
func optStringCol[T any](name string, f func(*T) *string) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: true},
		put: func(b array.Builder, r *T) {
			if v := *f(r); v != "" {
				b.(*array.StringBuilder).Append(v)
			} else {
				b.AppendNull()
			}
		},
		get: func(a arrow.Array, i int, r *T) {
			if !a.IsNull(i) {
				*f(r) = a.(*array.String).Value(i)
			}
		},
	}
}

// cpuListCol stores a CPU set as a list of CPU numbers, null for none
// (no pinning, or unknown). A set written before the column was a list
// holds it as text, "0,1", and reads too.
func cpuListCol[T any](name string, f func(*T) *CPUList) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		put: func(b array.Builder, r *T) {
			v := *f(r)
			if len(v) == 0 {
				b.AppendNull()
				return
			}
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			vb := lb.ValueBuilder().(*array.Int32Builder)
			for _, c := range v {
				vb.Append(c)
			}
		},
		get: func(a arrow.Array, i int, r *T) {
			if a.IsNull(i) {
				*f(r) = nil
				return
			}
			switch a := a.(type) {
			case *array.List:
				from, to := a.ValueOffsets(i)
				values := a.ListValues().(*array.Int32)
				out := make(CPUList, 0, to-from)
				for j := from; j < to; j++ {
					out = append(out, values.Value(int(j)))
				}
				*f(r) = out
			case *array.String:
				*f(r) = parseCPUList(a.Value(i))
			}
		},
	}
}

// phaseNamesCol and phaseEndsCol store a spawn's phases as two columns,
// the names (a dictionary string, "" for none: a host's names repeat on
// every row) and their ends (a list, null for none), so that a reader
// needs no nested type. Each fills its half of the phases, making as
// many as it holds.
func phaseNamesCol[T any](name string, f func(*T) *[]Phase) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}},
		put: func(b array.Builder, r *T) {
			names := make([]string, len(*f(r)))
			for i, p := range *f(r) {
				names[i] = p.Name
			}
			// Appending a string to a string dictionary cannot fail.
			_ = b.(*array.BinaryDictionaryBuilder).AppendString(strings.Join(names, ","))
		},
		get: func(a arrow.Array, i int, r *T) {
			var joined string
			switch a := a.(type) {
			case *array.Dictionary:
				joined = a.Dictionary().(*array.String).Value(a.GetValueIndex(i))
			case *array.String:
				joined = a.Value(i)
			}
			if joined == "" {
				return
			}
			names := strings.Split(joined, ",")
			ps := phasesOfLen(f(r), len(names))
			for k, n := range names {
				ps[k].Name = n
			}
		},
	}
}

func phaseEndsCol[T any](name string, f func(*T) *[]Phase) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		put: func(b array.Builder, r *T) {
			ps := *f(r)
			if len(ps) == 0 {
				b.AppendNull()
				return
			}
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			vb := lb.ValueBuilder().(*array.Int64Builder)
			for _, p := range ps {
				vb.Append(p.EndNS)
			}
		},
		get: func(a arrow.Array, i int, r *T) {
			if a.IsNull(i) {
				return
			}
			l := a.(*array.List)
			from, to := l.ValueOffsets(i)
			values := l.ListValues().(*array.Int64)
			ps := phasesOfLen(f(r), int(to-from))
			for k := range ps {
				ps[k].EndNS = values.Value(int(from) + k)
			}
		},
	}
}

// phasesOfLen makes *ps hold n phases, keeping what it holds.
func phasesOfLen(ps *[]Phase, n int) []Phase {
	if len(*ps) < n {
		*ps = append(*ps, make([]Phase, n-len(*ps))...)
	}
	return (*ps)[:n]
}

// checkType reports a column whose stored type differs from the layout.
// A CPU list stored as text (before it was a list) and a string stored
// as a dictionary, or the other way, are the same column.
func checkType[T any](c column[T], got arrow.DataType) error {
	if _, ok := c.field.Type.(*arrow.ListType); ok && arrow.TypeEqual(got, arrow.BinaryTypes.String) {
		return nil
	}
	if d, ok := c.field.Type.(*arrow.DictionaryType); ok {
		if g, ok := got.(*arrow.DictionaryType); ok && arrow.TypeEqual(d.ValueType, g.ValueType) || arrow.TypeEqual(d.ValueType, got) {
			return nil
		}
	}
	if !arrow.TypeEqual(c.field.Type, got) {
		return fmt.Errorf("column %q has type %s, want %s", c.field.Name, got, c.field.Type)
	}
	return nil
}

// timeCol stores a UTC timestamp in microseconds, which every reader maps
// to its native datetime type.
func timeCol[T any](name string, f func(*T) *time.Time) column[T] {
	typ := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	return column[T]{
		field: arrow.Field{Name: name, Type: typ},
		put: func(b array.Builder, r *T) {
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(f(r).UnixMicro()))
		},
		get: func(a arrow.Array, i int, r *T) {
			*f(r) = time.UnixMicro(int64(a.(*array.Timestamp).Value(i))).UTC()
		},
	}
}

// ColumnDoc says what one column of a table is: its name, its type as
// docs/results.md spells it, whether it can be null, and its description.
type ColumnDoc struct {
	Name, Type  string
	Nullable    bool
	Description string
}

// Columns describes the columns of file (SamplesFile, RunsFile,
// CalibrationFile or CellsFile), in their order in the file; nil for any
// other name. docs/results.md's column tables are generated from it.
func Columns(file string) []ColumnDoc {
	switch file {
	case SamplesFile:
		return docsOf(sampleColumns)
	case RunsFile:
		return docsOf(runColumns)
	case CalibrationFile:
		return docsOf(calibrationColumns)
	case CellsFile:
		return docsOf(cellColumns)
	}
	return nil
}

func docsOf[T any](cols []column[T]) []ColumnDoc {
	out := make([]ColumnDoc, len(cols))
	for i, c := range cols {
		out[i] = ColumnDoc{Name: c.field.Name, Type: typeName(c.field.Type), Nullable: c.field.Nullable, Description: c.description}
	}
	return out
}

// typeName is an Arrow type as a reader of the Parquet file sees it.
func typeName(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.DictionaryType:
		return typeName(t.ValueType) + " (dictionary)"
	case *arrow.ListType:
		return "list<" + typeName(t.Elem()) + ">"
	case *arrow.TimestampType:
		if t.Unit == arrow.Microsecond {
			return "timestamp (µs, " + t.TimeZone + ")"
		}
	case *arrow.Float64Type:
		return "double"
	case *arrow.StringType:
		return "string"
	}
	return t.String()
}

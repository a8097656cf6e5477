package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNoSet says a directory holds no file of a result set.
var ErrNoSet = errors.New("no spawnbench result set")

// provenanceFile is what Read checks of provenance.json: the set and
// generation it belongs to (the provenance itself travels in every
// Parquet file).
type provenanceFile struct {
	present    bool
	set        string
	generation int64
}

func readProvenanceFile(path string) (provenanceFile, error) {
	var p provenanceFile
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	} else if err != nil {
		return p, fmt.Errorf("read %s: %w", path, err)
	}
	p.present = true
	var head struct {
		Set        string `json:"set"`
		Generation int64  `json:"generation"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		// Sets of format 1 kept flat strings here; only an ID-stamped set
		// needs this file whole, and it is refused below without an ID.
		return p, nil
	}
	p.set, p.generation = head.Set, head.Generation
	return p, nil
}

// setFile is one file of a set as Read found it.
type setFile struct {
	name       string
	present    bool
	set        string
	generation int64
}

// Read loads the result set in dir: the Parquet files plus any journal of
// processes not yet compacted into them (a run in progress or killed: its
// set reads as what the journal holds, and its invocation as never
// ended). Every file must belong to one set (one ID) and generation (or
// to the journal's base and the next, during a compaction); a file of
// another set, of another generation, or missing, gives a FormatError
// naming it; a directory holding none gives one that wraps ErrNoSet. A
// set whose rows repeat one process is refused as bad input, naming the
// cell. Sets written before IDs read as before.
func Read(dir string) (*Set, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("result directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, &FormatError{Path: dir, Err: errors.New("it is a file; give the result directory that holds samples.parquet")}
	}
	j, err := readJournal(filepath.Join(dir, JournalFile))
	if err != nil {
		return nil, err
	}
	samples, err := readTable(filepath.Join(dir, SamplesFile), sampleColumns)
	if err != nil {
		return nil, err
	}
	runs, err := readTable(filepath.Join(dir, RunsFile), runColumns)
	if err != nil {
		return nil, err
	}
	cal, err := readTable(filepath.Join(dir, CalibrationFile), calibrationColumns)
	if err != nil {
		return nil, err
	}
	pf, err := readProvenanceFile(filepath.Join(dir, ProvenanceFile))
	if err != nil {
		return nil, err
	}
	files := []setFile{
		{CalibrationFile, cal.present, cal.set, cal.generation},
		{SamplesFile, samples.present, samples.set, samples.generation},
		{RunsFile, runs.present, runs.set, runs.generation},
		{ProvenanceFile, pf.present, pf.set, pf.generation},
	}
	if err := checkFiles(dir, files, j); err != nil {
		return nil, err
	}
	s := &Set{ID: setID(files, j), Samples: samples.rows, Runs: runs.rows, Calibration: cal.rows, Provenance: samples.prov, Generation: samples.generation}
	if !samples.present {
		// A calibration alone, or a journal not yet compacted.
		s.Provenance, s.Generation = cal.prov, cal.generation
	}
	if j != nil {
		if !samples.present && !cal.present {
			s.Provenance = Provenance{Format: FormatVersion}
		}
		// Files still at the journal's base generation lack its records;
		// files one past it were compacted from the journal already.
		provGen := samples.generation
		if !samples.present {
			provGen = cal.generation
		}
		s.Damaged = j.damaged
		j.apply(s, applyTo{
			samples:     samples.generation == j.base,
			runs:        runs.generation == j.base,
			calibration: !cal.present || cal.generation == j.base, // sets before IDs lacked it until calibrated
			provenance:  provGen == j.base,
		})
		s.Generation = max(samples.generation, runs.generation, cal.generation)
	}
	fillMachines(s)
	fillSummaries(s)
	if fillClockSteps(s) {
		MarkClockTrust(s)
	}
	fillFamilies(s)
	if err := CheckUnique(dir, s); err != nil {
		return nil, err
	}
	return s, nil
}

// setID is the ID most of the set's files carry (the journal's on a tie),
// so that the one file that differs is the one named.
func setID(files []setFile, j *journal) string {
	count := map[string]int{}
	var order []string
	vote := func(id string) {
		if id == "" {
			return
		}
		if count[id] == 0 {
			order = append(order, id)
		}
		count[id]++
	}
	if j != nil {
		vote(j.set)
	}
	for _, f := range files {
		if f.present {
			vote(f.set)
		}
	}
	best := ""
	for _, id := range order {
		if count[id] > count[best] {
			best = id
		}
	}
	return best
}

// checkFiles refuses a directory whose files are not one set: a file of
// another set or generation, or a file missing. With a journal, files may
// be at its base generation or the next (a kill during compaction), and
// missing while the journal extends generation 0 (nothing compacted yet).
func checkFiles(dir string, files []setFile, j *journal) error {
	any, stamped := j != nil, false
	for _, f := range files {
		any = any || f.present
		stamped = stamped || f.set != ""
	}
	id := setID(files, j)
	if !any {
		// No fix here: run refuses a directory that holds other files,
		// and only the caller knows what the directory was for.
		return &FormatError{Path: dir, Err: fmt.Errorf("%w: %s is missing", ErrNoSet, SamplesFile)}
	}
	path := func(f setFile) string { return filepath.Join(dir, f.name) }
	for _, f := range files {
		switch {
		case !f.present || f.set == id:
		case f.set == "" && j != nil && f.generation == j.base:
			// Written before set IDs; the journal (with the ID) extends it.
		case f.set == "":
			return &FormatError{Path: path(f), Err: mismatchf("carries no set ID, but the other files of the set carry set ID %s: it is from another (older) result set; put back this set's own %s", id, f.name)}
		default:
			return &FormatError{Path: path(f), Err: mismatchf("belongs to result set %s, but the other files of %s to set %s: it was copied or moved here from another result set; put back this set's own %s, or read each set from its own directory", f.set, dir, id, f.name)}
		}
	}
	if j != nil && j.set != "" && j.set != id {
		return &FormatError{Path: filepath.Join(dir, JournalFile), Err: mismatchf("belongs to result set %s, but the other files of %s to set %s: it was copied or moved here from another result set; remove it (or put back this set's own journal)", j.set, dir, id)}
	}
	// Which files must be there: none while the journal extends
	// generation 0; all four once a writer with set IDs wrote one; samples
	// and runs for older sets (calibration was written only when made).
	required := map[string]bool{}
	if j == nil || j.base > 0 {
		if stamped {
			for _, f := range files {
				required[f.name] = true
			}
		} else {
			required[SamplesFile], required[RunsFile] = true, true
		}
	}
	for _, f := range files {
		if required[f.name] && !f.present {
			return &FormatError{Path: path(f), Err: mismatchf("is missing: the result set in %s is not whole without it; restore it from a copy of this set, or measure again into a new directory", dir)}
		}
	}
	if j == nil {
		gen, first := int64(0), ""
		for _, f := range files {
			if !f.present || f.name == ProvenanceFile && f.set == "" {
				continue
			}
			if first == "" {
				gen, first = f.generation, f.name
				continue
			}
			if f.generation != gen {
				return &FormatError{Path: path(f), Err: mismatchf("is at generation %d, but %s at generation %d: the files disagree and no journal is left to reconcile them (a file of an older or newer state of this set was put back); restore the set's files from one copy", f.generation, first, gen)}
			}
		}
		return nil
	}
	for _, f := range files {
		if !f.present || f.name == ProvenanceFile && f.set == "" {
			continue
		}
		if f.generation != j.base && f.generation != j.base+1 {
			return &FormatError{Path: path(f), Err: mismatchf("is at generation %d, but the journal extends generation %d: a file of another state of this set was put back; restore the set's files from one copy", f.generation, j.base)}
		}
	}
	return nil
}

// fillMachines gives rows written before the machine column the machine
// of the invocation that measured them.
func fillMachines(s *Set) {
	id := func(inv int32) string {
		if i := s.Provenance.Find(inv); i != nil {
			return i.Machine.Identity()
		}
		return ""
	}
	for i := range s.Samples {
		if s.Samples[i].Machine == "" {
			s.Samples[i].Machine = id(s.Samples[i].Invocation)
		}
	}
	for i := range s.Runs {
		if s.Runs[i].Machine == "" {
			s.Runs[i].Machine = id(s.Runs[i].Invocation)
		}
	}
}

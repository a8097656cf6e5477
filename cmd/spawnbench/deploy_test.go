package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"spawnbench/engine/run"
)

// deployFile is one ready-made way to run on a fleet (deploy/), what its
// spawnbench command lines see in their environment, and its shard count
// as its scheduler states it.
type deployFile struct {
	path string
	yaml bool
	// env is what the scheduler sets for the first shard; vars maps the
	// file's placeholders to that shard's values.
	env  map[string]string
	vars map[string]string
	// shards reads the scheduler's shard count from the parsed file (YAML)
	// or its text.
	shards func(t *testing.T, doc map[string]any, text string) int
	// retries checks that the scheduler runs a failed shard again on
	// what its first attempt left, given the file and its run line.
	retries func(t *testing.T, doc map[string]any, text string, run parsedFlags)
}

var deployFiles = []deployFile{
	{
		path: "deploy/kubernetes/indexed-job.yaml", yaml: true,
		env:  map[string]string{run.KubernetesIndex: "0"},
		vars: map[string]string{"$JOB_COMPLETION_INDEX": "0"},
		shards: func(t *testing.T, doc map[string]any, _ string) int {
			spec := doc["spec"].(map[string]any)
			if spec["completionMode"] != "Indexed" || doc["kind"] != "Job" {
				t.Errorf("not an Indexed Job: kind %v, completionMode %v", doc["kind"], spec["completionMode"])
			}
			return spec["completions"].(int)
		},
		retries: kubernetesRetries,
	},
	{path: "deploy/kubernetes/merge-job.yaml", yaml: true},
	{
		path: "deploy/github/fleet.yml", yaml: true,
		vars: map[string]string{"${{ matrix.shard }}": "0"},
		shards: func(t *testing.T, doc map[string]any, _ string) int {
			jobs := doc["jobs"].(map[string]any)
			if needs := jobs["merge"].(map[string]any)["needs"]; needs != "shard" {
				t.Errorf("merge job needs %v, want the shard jobs", needs)
			}
			matrix := jobs["shard"].(map[string]any)["strategy"].(map[string]any)["matrix"].(map[string]any)
			shards := matrix["shard"].([]any)
			for i, s := range shards {
				if s != i {
					t.Errorf("matrix shard %d is %v: shards are numbered from 0", i, s)
				}
			}
			return len(shards)
		},
		retries: githubRetries,
	},
	{
		path: "deploy/slurm/array.sbatch",
		env:  map[string]string{run.SlurmTaskID: "0", run.SlurmTaskMin: "0", run.SlurmTaskCount: "4"},
		vars: map[string]string{`"$spec"`: "specs/sequential.cue", "$SLURM_ARRAY_TASK_ID": "0", "$SLURM_ARRAY_JOB_ID": "1", "$job": "1"},
		shards: func(t *testing.T, _ map[string]any, text string) int {
			m := regexp.MustCompile(`(?m)^#SBATCH --array=(\d+)-(\d+)$`).FindStringSubmatch(text)
			if m == nil {
				t.Fatal("no #SBATCH --array=LO-HI line")
			}
			lo, _ := strconv.Atoi(m[1])
			hi, _ := strconv.Atoi(m[2])
			return hi - lo + 1
		},
		retries: func(t *testing.T, _ map[string]any, text string, _ parsedFlags) {
			// Requeue allowed (scontrol requeue, preemption, a failed node),
			// and the log appended to, so it keeps every attempt.
			for _, want := range []string{"#SBATCH --requeue", "#SBATCH --open-mode=append"} {
				if !regexp.MustCompile(`(?m)^` + want + `$`).MatchString(text) {
					t.Errorf("no %q line", want)
				}
			}
		},
	},
}

// kubernetesRetries: each index is retried on its own (a per-index
// backoff, no Job-wide limit that one failure exhausts), a disruption
// does not count, pods are not restarted in place, spawnbench is the
// container's first process (it gets the pod's SIGTERM), and the run
// line's directory is on a PersistentVolumeClaim (not the pod's
// emptyDir), which the file defines for every node to mount.
func kubernetesRetries(t *testing.T, doc map[string]any, text string, run parsedFlags) {
	spec := doc["spec"].(map[string]any)
	if n, _ := spec["backoffLimitPerIndex"].(int); n < 1 {
		t.Errorf("backoffLimitPerIndex %v: a failed index must be run again", spec["backoffLimitPerIndex"])
	}
	if _, ok := spec["backoffLimit"]; ok {
		t.Errorf("backoffLimit %v: with backoffLimitPerIndex the Job-wide limit stays unset", spec["backoffLimit"])
	}
	ignoresDisruption := false
	for _, r := range dig[[]any](t, spec, "podFailurePolicy", "rules") {
		rule := r.(map[string]any)
		for _, c := range asSlice(rule["onPodConditions"]) {
			if c.(map[string]any)["type"] == "DisruptionTarget" && rule["action"] == "Ignore" {
				ignoresDisruption = true
			}
		}
	}
	if !ignoresDisruption {
		t.Error("podFailurePolicy does not Ignore a DisruptionTarget: an evicted or preempted pod would use up its index's retries")
	}
	pod := dig[map[string]any](t, spec, "template", "spec")
	if pod["restartPolicy"] != "Never" {
		t.Errorf("restartPolicy %v, want Never (a new pod per try, as backoffLimitPerIndex needs)", pod["restartPolicy"])
	}
	container := asSlice(pod["containers"])[0].(map[string]any)
	// The pod's SIGTERM goes to the container's first process, which a
	// shell there would ignore: spawnbench must be it.
	if script := strings.Join(asStrings(container["args"]), "\n"); !regexp.MustCompile(`(?m)^\s*exec bin/spawnbench run `).MatchString(script) {
		t.Errorf("the container's args do not exec spawnbench run (so the pod's SIGTERM would not reach it): %q", script)
	}
	claims := map[string]string{} // volume name -> claim
	for _, v := range asSlice(pod["volumes"]) {
		v := v.(map[string]any)
		if pvc, ok := v["persistentVolumeClaim"].(map[string]any); ok {
			claims[v["name"].(string)] = pvc["claimName"].(string)
		}
	}
	mounted := ""
	for _, m := range asSlice(container["volumeMounts"]) {
		m := m.(map[string]any)
		if path := m["mountPath"].(string); strings.HasPrefix(run.out, path+"/") && claims[m["name"].(string)] != "" {
			mounted = claims[m["name"].(string)]
		}
	}
	if mounted == "" {
		t.Fatalf("-o %s is not on a PersistentVolumeClaim: a retry in a new pod would find nothing", run.out)
	}
	defined := false
	for _, d := range yamlDocs(t, []byte(text)) {
		if d["kind"] == "PersistentVolumeClaim" && dig[map[string]any](t, d, "metadata")["name"] == mounted {
			defined = slices.Contains(asStrings(dig[map[string]any](t, d, "spec")["accessModes"]), "ReadWriteMany")
		}
	}
	if !defined {
		t.Errorf("the file defines no ReadWriteMany PersistentVolumeClaim %s for pods on every node", mounted)
	}
}

// githubRetries: a re-run of a failed shard job downloads the artifact
// its earlier attempt kept, whatever that attempt's end, into the run
// line's directory, and uploads over it.
func githubRetries(t *testing.T, doc map[string]any, _ string, run parsedFlags) {
	steps := asSlice(dig[map[string]any](t, doc, "jobs", "shard")["steps"])
	var download, upload map[string]any
	for _, s := range steps {
		s := s.(map[string]any)
		switch uses, _ := s["uses"].(string); {
		case strings.HasPrefix(uses, "actions/download-artifact@"):
			download = s
		case strings.HasPrefix(uses, "actions/upload-artifact@"):
			upload = s
		}
	}
	if download == nil || upload == nil {
		t.Fatal("the shard job does not both download and upload its artifact")
	}
	with := func(s map[string]any) map[string]any { return s["with"].(map[string]any) }
	if upload["if"] != "always()" || with(upload)["overwrite"] != true || with(upload)["path"] != run.out {
		t.Errorf("upload step %v: want if: always(), overwrite: true and path %s, so a failed attempt's set is kept and a re-run's replaces it", upload, run.out)
	}
	if with(download)["name"] != with(upload)["name"] || with(download)["path"] != run.out || download["continue-on-error"] != true {
		t.Errorf("download step %v: want the upload's name %v into %s, not failing when there is none", download, with(upload)["name"], run.out)
	}
}

// dig is the value at keys in a parsed YAML document.
func dig[T any](t *testing.T, doc map[string]any, keys ...string) T {
	t.Helper()
	var v any = doc
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("no %s in %v", strings.Join(keys, "."), doc)
		}
		v = m[k]
	}
	out, ok := v.(T)
	if !ok {
		t.Fatalf("%s is %T, not %T", strings.Join(keys, "."), v, out)
	}
	return out
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func asStrings(v any) []string {
	var out []string
	for _, x := range asSlice(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// yamlDocs are the documents of a YAML file.
func yamlDocs(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var docs []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("not YAML: %v", err)
		}
		docs = append(docs, d)
	}
}

// TestDeployFiles checks every file of deploy/: it parses (YAML), never
// names a registry host or fetches a toolchain itself (it runs
// .ci/setup), and each spawnbench command line in it, comments included,
// parses with the real command's flags and arguments. Each `run` line's
// shard, taken from its flags and the environment its scheduler sets, is
// checked against the scheduler's count, and its plan is split with
// `spawnbench plan SPEC --shards N`.
func TestDeployFiles(t *testing.T) {
	root := repoRoot(t)
	// The plans split so far, by spec and shard count: files that run the
	// same spec in as many shards have the same plan to split.
	planned := map[string]bool{}
	for _, f := range deployFiles {
		t.Run(filepath.Base(f.path), func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(root, f.path))
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			var doc map[string]any // the scheduler's: the first Job, else the only one
			if f.yaml {
				docs := yamlDocs(t, b)
				doc = docs[0]
				for _, d := range docs {
					if d["kind"] == "Job" {
						doc = d
						break
					}
				}
			}
			if !strings.Contains(text, "bash .ci/setup") {
				t.Error("does not install through .ci/setup")
			}
			for _, bad := range []string{"curl ", "wget ", "setup-go", "setup-node", "setup-python", "docker.io", "ghcr.io", "quay.io", "gcr.io"} {
				if strings.Contains(text, bad) {
					t.Errorf("contains %q: everything must come through .ci/setup", bad)
				}
			}
			schedulerShards := 0
			if f.shards != nil {
				schedulerShards = f.shards(t, doc, text)
			}
			lines := spawnbenchLines(text, f.vars)
			if len(lines) == 0 {
				t.Fatal("no spawnbench command line")
			}
			ran := false
			for _, args := range lines {
				cmd, flags := parseCommandLine(t, args)
				if cmd.Name() != "run" {
					continue
				}
				ran = true
				// The requeue-safe line: right on every attempt of a
				// scheduler's retry (it starts, continues, or finds the
				// shard complete) only with --resume into a named directory.
				if !flags.resume || flags.out == "" {
					t.Errorf("%v: not the requeue-safe line `run SPEC -o DIR --resume`: a retry of the shard would be refused or start elsewhere", args)
				}
				if f.retries != nil {
					f.retries(t, doc, text, flags)
				}
				shard, err := run.ShardFrom(flags.shard, flags.shards, func(k string) string { return f.env[k] })
				if err != nil || shard == nil {
					t.Fatalf("%v: shard: %v, %v", args, shard, err)
				}
				if schedulerShards != shard.Count {
					t.Errorf("%v: %d shards, but the scheduler runs %d", args, shard.Count, schedulerShards)
				}
				key := flags.positional[0] + " --shards " + strconv.Itoa(shard.Count)
				if planned[key] || testing.Short() { // the plan reads results/sequential whole
					continue
				}
				planned[key] = true
				_, stderr, code := runCLI(t, "plan", filepath.Join(root, flags.positional[0]), "--shards", strconv.Itoa(shard.Count))
				if code != 0 {
					t.Errorf("spawnbench plan %s --shards %d: exit %d: %s", flags.positional[0], shard.Count, code, stderr)
				}
			}
			if f.shards != nil && !ran {
				t.Error("no spawnbench run line")
			}
		})
	}
}

// spawnbenchLines finds every `bin/spawnbench ...` command in text,
// placeholders replaced by the first shard's values and a glob by the two
// paths a shell would expand it to.
func spawnbenchLines(text string, vars map[string]string) [][]string {
	var out [][]string
	for _, line := range strings.Split(text, "\n") {
		i := strings.Index(line, "bin/spawnbench ")
		if i < 0 {
			continue
		}
		line = line[i+len("bin/spawnbench "):]
		for k, v := range vars {
			line = strings.ReplaceAll(line, k, v)
		}
		var words []string
		for _, w := range strings.Fields(line) {
			if strings.Contains(w, "*") {
				words = append(words, strings.Replace(w, "*", "a", 1), strings.Replace(w, "*", "b", 1))
				continue
			}
			words = append(words, w)
		}
		out = append(out, words)
	}
	return out
}

// parsedFlags are the values of a parsed command line that the test uses.
type parsedFlags struct {
	shard      string
	shards     int
	out        string
	resume     bool
	positional []string
}

// parseCommandLine parses args with the real cobra command and checks its
// positional arguments, then puts the command's flags back to their
// defaults.
func parseCommandLine(t *testing.T, args []string) (*cobra.Command, parsedFlags) {
	t.Helper()
	root := testRoot()
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root {
		t.Fatalf("spawnbench %v: no such command (%v)", args, err)
	}
	defer resetFlags(cmd)
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("spawnbench %v: %v", args, err)
	}
	var p parsedFlags
	p.positional = cmd.Flags().Args()
	if err := cmd.ValidateArgs(p.positional); err != nil {
		t.Fatalf("spawnbench %v: %v", args, err)
	}
	if f := cmd.Flags().Lookup("shard"); f != nil {
		p.shard = f.Value.String()
	}
	if cmd.Flags().Lookup("shards") != nil {
		p.shards, _ = cmd.Flags().GetInt("shards")
	}
	if cmd.Flags().Lookup("resume") != nil {
		p.resume, _ = cmd.Flags().GetBool("resume")
	}
	if cmd.Flags().Lookup("out") != nil {
		p.out, _ = cmd.Flags().GetString("out")
	}
	if cmd.Name() == "merge" || cmd.Name() == "run" {
		if out, _ := cmd.Flags().GetString("out"); out == "" && cmd.Name() == "merge" {
			t.Errorf("spawnbench %v: merge without -o", args)
		}
	}
	return cmd, p
}

func resetFlags(cmd *cobra.Command) {
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if s, ok := f.Value.(pflag.SliceValue); ok {
			_ = s.Replace(nil)
		} else {
			_ = f.Value.Set(f.DefValue)
		}
		f.Changed = false
	})
}

package main

import (
	"os"
	"path/filepath"
	"regexp"
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
	},
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
	for _, f := range deployFiles {
		t.Run(filepath.Base(f.path), func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(root, f.path))
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			var doc map[string]any
			if f.yaml {
				if err := yaml.Unmarshal(b, &doc); err != nil {
					t.Fatalf("not YAML: %v", err)
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
				shard, err := run.ShardFrom(flags.shard, flags.shards, func(k string) string { return f.env[k] })
				if err != nil || shard == nil {
					t.Fatalf("%v: shard: %v, %v", args, shard, err)
				}
				if schedulerShards != shard.Count {
					t.Errorf("%v: %d shards, but the scheduler runs %d", args, shard.Count, schedulerShards)
				}
				_, stderr, code := runCLI(t, root, "plan", flags.positional[0], "--shards", strconv.Itoa(shard.Count))
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
	positional []string
}

// parseCommandLine parses args with the real cobra command and checks its
// positional arguments, then puts the command's flags back to their
// defaults.
func parseCommandLine(t *testing.T, args []string) (*cobra.Command, parsedFlags) {
	t.Helper()
	cmd, rest, err := rootCmd.Find(args)
	if err != nil || cmd == rootCmd {
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

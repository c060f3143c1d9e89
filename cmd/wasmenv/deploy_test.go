package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

// k8sObject is the part of a Kubernetes object the checks read.
type k8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		Replicas       *int   `yaml:"replicas"`
		ServiceName    string `yaml:"serviceName"`
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Template       struct {
			Spec struct {
				Containers []struct {
					Image   string   `yaml:"image"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func readManifests(t *testing.T) map[string]k8sObject {
	t.Helper()
	files, _ := filepath.Glob("../../deploy/k8s/*.yaml")
	if len(files) < 3 {
		t.Fatalf("deploy/k8s has %d manifests", len(files))
	}
	objs := map[string]k8sObject{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(false)
		for {
			var o k8sObject
			err := dec.Decode(&o)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
				t.Fatalf("%s: an object without apiVersion, kind or name: %+v", f, o)
			}
			objs[o.Kind+"/"+o.Metadata.Name] = o
		}
	}
	return objs
}

// parseWith parses args as cmd's flags would, so a manifest cannot use a
// flag the binary does not have.
func parseWith(t *testing.T, cmd *cobra.Command, args []string) *cobra.Command {
	t.Helper()
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatalf("%s %v: %v", cmd.Name(), args, err)
	}
	return cmd
}

// The Kubernetes manifests parse, form a 3-node JetStream cluster whose
// routes name its own pods, point the workers at its service with 3
// replicas, and use only flags the commands have.
func TestDeployManifests(t *testing.T) {
	objs := readManifests(t)
	sts, ok := objs["StatefulSet/nats"]
	if !ok || sts.Spec.Replicas == nil || *sts.Spec.Replicas != 3 {
		t.Fatalf("want a StatefulSet nats with 3 replicas: %+v", sts)
	}
	conf := objs["ConfigMap/nats-config"].Data["nats.conf"]
	if !strings.Contains(conf, "jetstream") {
		t.Fatal("nats.conf does not enable JetStream")
	}
	for i := range 3 {
		route := "nats-" + string(rune('0'+i)) + "." + sts.Spec.ServiceName + ":6222"
		if !strings.Contains(conf, route) {
			t.Fatalf("nats.conf has no route to %s", route)
		}
	}
	if _, ok := objs["Service/"+sts.Spec.ServiceName]; !ok {
		t.Fatalf("no headless service %s", sts.Spec.ServiceName)
	}

	dep := objs["Deployment/wasmenv-worker"]
	if len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("worker deployment: %+v", dep)
	}
	args := dep.Spec.Template.Spec.Containers[0].Args
	if len(args) == 0 || args[0] != "worker" {
		t.Fatalf("worker args %v", args)
	}
	w := parseWith(t, workerCmd(), args[1:])
	url, _ := w.Flags().GetString("nats")
	host := regexp.MustCompile(`^nats://([^:/]+):4222$`).FindStringSubmatch(url)
	if host == nil {
		t.Fatalf("--nats %q", url)
	}
	if _, ok := objs["Service/"+host[1]]; !ok {
		t.Fatalf("--nats names %s, not a service of the manifests", host[1])
	}
	if r, _ := w.Flags().GetInt("replicas"); r != *sts.Spec.Replicas {
		t.Fatalf("workers create streams with %d replicas on a %d-node cluster", r, *sts.Spec.Replicas)
	}

	job := objs["Job/wasmenv-rollout"]
	if job.Spec.CompletionMode != "Indexed" || job.Spec.Completions < 1 {
		t.Fatalf("rollout job: %+v", job.Spec)
	}
	cmdline := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " ")
	fields := strings.Fields(strings.NewReplacer(`"`, "", "${JOB_COMPLETION_INDEX}", "0").Replace(cmdline))
	if len(fields) < 3 || fields[0] != "exec" || fields[1] != "wasmenv" || fields[2] != "rollout" {
		t.Fatalf("rollout job runs %q", cmdline)
	}
	r := parseWith(t, rolloutCmd(), fields[3:])
	shard, _ := r.Flags().GetString("shard")
	if want := "0/" + strconv.Itoa(job.Spec.Completions); shard != want {
		t.Fatalf("--shard %q, want %q: one shard per completion index", shard, want)
	}
}

// The Slurm scripts call wasmenv with flags its commands have.
func TestDeploySlurmScripts(t *testing.T) {
	files, _ := filepath.Glob("../../deploy/slurm/*.sbatch")
	if len(files) < 2 {
		t.Fatalf("deploy/slurm has %d scripts", len(files))
	}
	cmds := map[string]func() *cobra.Command{"rollout": rolloutCmd, "eval": evalCmd, "worker": workerCmd, "cluster": clusterCmd}
	seen := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(data), "\\\n", " ")
		for _, line := range strings.Split(text, "\n") {
			_, rest, ok := strings.Cut(line, "wasmenv ")
			if !ok || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			fields := strings.Fields(strings.NewReplacer(`"`, "", "&", "").Replace(rest))
			mk := cmds[fields[0]]
			if mk == nil {
				t.Fatalf("%s: wasmenv %s: not a fleet command", f, fields[0])
			}
			var flags []string
			for _, fl := range fields[1:] {
				if !strings.HasSuffix(fl, ".wasm") && !strings.Contains(fl, "*") {
					flags = append(flags, fl)
				}
			}
			parseWith(t, mk(), flags)
			seen++
		}
	}
	if seen < 3 {
		t.Fatalf("%d wasmenv calls in the Slurm scripts", seen)
	}
}

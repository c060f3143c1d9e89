package fleet

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/wasmenv/wasmenv/envpkg"
)

// JobKind names what a job runs; each kind has one body (Spec, Synth or
// SynthLLM) and one result payload.
type JobKind string

const (
	KindRollout  JobKind = "rollout"   // Spec: a group's JSONL (group.go)
	KindEval     JobKind = "eval"      // Spec with Eval: a chunk's EvalRecords (eval.go)
	KindSynth    JobKind = "synth"     // Synth: an environment's tar (synth.go)
	KindSynthLLM JobKind = "synth-llm" // SynthLLM: a scenario's output directory as a tar (synth_llm.go)
)

// Job is one message of the work queue: a group of a run, with the run's
// settings.
type Job struct {
	Run string `json:"run"`
	// Kind is what the job runs, stamped by the driver (and so part of
	// its digest); a worker checks that it is the kind of the body.
	Kind JobKind `json:"kind,omitempty"`
	// Attempt names the driver's attempt at the run (a run resumed by id
	// has several).
	Attempt string `json:"attempt,omitempty"`
	// Digest is the SHA-256 of the job as planned, without the attempt
	// (wire.go): the worker echoes it in the result and dead letter.
	Digest string `json:"digest,omitempty"`
	GroupRef
	Spec *Spec `json:"spec,omitempty"`
	// Synth, instead of Spec, makes the job a synthesis (synth.go).
	Synth *SynthSpec `json:"synth,omitempty"`
	// SynthLLM, instead of Spec, makes the job one scenario of an LLM
	// synthesis (synth_llm.go).
	SynthLLM *SynthLLMSpec `json:"synth_llm,omitempty"`
}

// id is the job's identity, the Nats-Msg-Id of its job, result and dead
// letter: a retried publish or a redelivered job is stored once, and a run
// id used again (its results purged) is not mistaken for a duplicate.
func (j *Job) id() string {
	id := j.Run + "." + strconv.Itoa(j.Index)
	if j.Attempt != "" {
		id += "." + j.Attempt
	}
	return id
}

func decodeJob(data []byte) (*Job, error) {
	var j Job
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("job is not JSON: %v", err)
	}
	switch {
	case !validRun(j.Run):
		return nil, fmt.Errorf("job has no valid run id (%q)", j.Run)
	case j.Attempt != "" && !validRun(j.Attempt):
		return nil, fmt.Errorf("job %s: attempt %q is not a subject token", j.Run, j.Attempt)
	case j.Index < 0:
		return nil, fmt.Errorf("job %s has a negative index", j.id())
	case (j.Synth != nil) && (j.Spec != nil || j.SynthLLM != nil) || j.Spec != nil && j.SynthLLM != nil:
		return nil, fmt.Errorf("job %s has more than one of a spec and a synthesis", j.id())
	case j.Kind != "" && j.Kind != j.bodyKind():
		return nil, fmt.Errorf("job %s: kind %q, but its body is of kind %q", j.id(), truncate(string(j.Kind), 32), j.bodyKind())
	}
	j.Kind = j.bodyKind()
	switch {
	case j.SynthLLM != nil:
		if err := j.SynthLLM.check(); err != nil {
			return nil, fmt.Errorf("job %s: %v", j.id(), err)
		}
		return &j, nil
	case j.Synth != nil:
		if err := j.Synth.check(); err != nil {
			return nil, fmt.Errorf("job %s: %v", j.id(), err)
		}
		return &j, nil
	case j.Spec == nil:
		return nil, fmt.Errorf("job %s has no spec", j.id())
	case !validHash(j.Bundle):
		return nil, fmt.Errorf("job %s: bundle name %q is not a content hash", j.id(), truncate(j.Bundle, 64))
	}
	if err := j.checkTasks(); err != nil {
		return nil, err
	}
	if _, err := j.Spec.Config(); err != nil {
		return nil, fmt.Errorf("job %s: %v", j.id(), err)
	}
	return &j, nil
}

// bodyKind is the kind of the job's body (one of them, checked).
func (j *Job) bodyKind() JobKind {
	switch {
	case j.Synth != nil:
		return KindSynth
	case j.SynthLLM != nil:
		return KindSynthLLM
	case j.Spec != nil && j.Spec.Eval:
		return KindEval
	}
	return KindRollout
}

// checkTasks checks what the job runs: one task, or an evaluation's chunk.
func (j *Job) checkTasks() error {
	if !j.Spec.Eval {
		if !envpkg.ValidTaskID(j.Task) || len(j.Tasks) > 0 {
			return fmt.Errorf("job %s: want one task id, got %q and %d more", j.id(), truncate(j.Task, 64), len(j.Tasks))
		}
		return nil
	}
	if j.Task != "" || len(j.Tasks) == 0 || len(j.Tasks) > MaxChunk {
		return fmt.Errorf("job %s: an evaluation job wants 1 to %d tasks in tasks, got %d (and task %q)", j.id(), MaxChunk, len(j.Tasks), truncate(j.Task, 64))
	}
	for _, t := range j.Tasks {
		if !envpkg.ValidTaskID(t) {
			return fmt.Errorf("job %s: %q is not a task id", j.id(), truncate(t, 64))
		}
	}
	return nil
}

// validRun reports whether s can be a run id: it becomes a subject token.
func validRun(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// DeadLetter is a message of the dead-letter stream.
type DeadLetter struct {
	Run        string `json:"run"`
	Index      int    `json:"index"`
	Env        string `json:"env,omitempty"`
	Task       string `json:"task,omitempty"`
	Deliveries uint64 `json:"deliveries"`
	Reason     string `json:"reason"`
	Worker     string `json:"worker,omitempty"`
	Job        string `json:"job,omitempty"` // the job message as it came, when it could not be read
	// Digest echoes the job's (wire.go): a driver takes the dead letter
	// only for its own job.
	Digest string `json:"digest,omitempty"`
}

func (d *DeadLetter) String() string {
	return fmt.Sprintf("job %d (%s/%s) after %d deliveries: %s", d.Index, d.Env, d.Task, d.Deliveries, d.Reason)
}

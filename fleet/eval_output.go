package fleet

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/wasmenv/wasmenv/internal/atomicfile"
)

// EvalSummary is the last line of an evaluation's output, computed from
// its task records in plan order only (no clock), so that it is the same
// bytes wherever the tasks ran.
type EvalSummary struct {
	Type      string `json:"type"` // "summary"
	Tasks     int    `json:"tasks"`
	Rollouts  int    `json:"rollouts"`
	Successes int    `json:"successes"`
	// SuccessRate is Successes/Rollouts; PassAtK the fraction of tasks
	// with at least one success among their K samples (the fewest any task
	// had; every task has --samples).
	SuccessRate float64    `json:"success_rate"`
	K           int        `json:"k"`
	PassAtK     float64    `json:"pass_at_k"`
	MeanReward  float64    `json:"mean_reward"`
	Envs        []EvalEnvs `json:"envs"` // in plan order
}

// EvalEnvs is one environment's figures in an EvalSummary.
type EvalEnvs struct {
	Env         string  `json:"env"`
	EnvHash     string  `json:"env_hash"`
	Tasks       int     `json:"tasks"`
	Rollouts    int     `json:"rollouts"`
	Successes   int     `json:"successes"`
	SuccessRate float64 `json:"success_rate"`
	PassAtK     float64 `json:"pass_at_k"`
	MeanReward  float64 `json:"mean_reward"`
}

// evalTally adds up task records; rewards are summed in record order.
type evalTally struct {
	EvalEnvs
	passed int
	reward float64
	k      int // the fewest samples of a task
}

func (t *evalTally) add(r *EvalRecord) {
	if t.Tasks == 0 || r.Samples < t.k {
		t.k = r.Samples
	}
	t.Tasks++
	t.Rollouts += r.Samples
	t.Successes += r.Successes
	if r.Successes > 0 {
		t.passed++
	}
	for _, x := range r.Rewards {
		t.reward += x
	}
}

func (t *evalTally) finish() EvalEnvs {
	e := t.EvalEnvs
	if e.Rollouts > 0 {
		e.SuccessRate = float64(e.Successes) / float64(e.Rollouts)
		e.MeanReward = t.reward / float64(e.Rollouts)
	}
	if e.Tasks > 0 {
		e.PassAtK = float64(t.passed) / float64(e.Tasks)
	}
	return e
}

// CreateEvalOutput opens path for an evaluation's records ("-": w): one
// EvalRecord line per task in plan order, then the EvalSummary line. A
// file is written beside path and appears whole on Close.
func CreateEvalOutput(path string, w io.Writer) (Output, error) {
	o := &evalOutput{w: w, envs: map[string]*evalTally{}}
	if path != "-" {
		f, err := atomicfile.Create(path)
		if err != nil {
			return nil, errorf(CodeBadInput, err, "output %s", path)
		}
		o.w, o.file = f, f
	}
	return o, nil
}

type evalOutput struct {
	w     io.Writer
	file  *atomicfile.File
	all   evalTally
	envs  map[string]*evalTally // by bundle hash
	order []string              // bundle hashes as first seen
	err   error
	ended bool
}

// WriteGroup takes one job's records: they are read, counted and written
// again by this encoder, so a worker's lines cannot shape the file.
func (o *evalOutput) WriteGroup(lines []byte) error {
	if o.err != nil {
		return o.err
	}
	dec := json.NewDecoder(bytes.NewReader(lines))
	dec.DisallowUnknownFields()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for dec.More() {
		var r EvalRecord
		if err := dec.Decode(&r); err != nil {
			o.err = errorf(CodeLost, err, "decode an evaluation record")
			return o.err
		}
		if r.Type != "task" || r.Samples != len(r.Rewards) || r.Successes < 0 || r.Successes > r.Samples {
			o.err = errorf(CodeLost, nil, "evaluation record %s/%s is inconsistent", truncate(r.Env, 64), truncate(r.Task, 64))
			return o.err
		}
		o.all.add(&r)
		t := o.envs[r.EnvHash]
		if t == nil {
			t = &evalTally{EvalEnvs: EvalEnvs{Env: r.Env, EnvHash: r.EnvHash}}
			o.envs[r.EnvHash] = t
			o.order = append(o.order, r.EnvHash)
		}
		t.add(&r)
		enc.Encode(&r)
	}
	if _, err := o.w.Write(buf.Bytes()); err != nil {
		o.err = err
	}
	return o.err
}

// summary is the summary of the records written so far.
func (o *evalOutput) summary() *EvalSummary {
	all := o.all.finish()
	s := &EvalSummary{Type: "summary", Tasks: all.Tasks, Rollouts: all.Rollouts, Successes: all.Successes,
		SuccessRate: all.SuccessRate, K: o.all.k, PassAtK: all.PassAtK, MeanReward: all.MeanReward, Envs: []EvalEnvs{}}
	for _, h := range o.order {
		s.Envs = append(s.Envs, o.envs[h].finish())
	}
	return s
}

func (o *evalOutput) Close() error {
	if o.ended {
		return nil
	}
	o.ended = true
	if o.err != nil {
		o.abortFile()
		return o.err
	}
	line, _ := json.Marshal(o.summary())
	if _, err := o.w.Write(append(line, '\n')); err != nil {
		o.abortFile()
		return err
	}
	if o.file != nil {
		return o.file.Commit()
	}
	return nil
}

func (o *evalOutput) Abort() {
	if !o.ended {
		o.ended = true
		o.abortFile()
	}
}

func (o *evalOutput) abortFile() {
	if o.file != nil {
		o.file.Abort()
	}
}

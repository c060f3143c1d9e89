package rl_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

// What a verl-style reader takes from the file, by column name.
type verlRow struct {
	DataSource string `parquet:"data_source"`
	Prompt     []struct {
		Role    string `parquet:"role"`
		Content string `parquet:"content"`
	} `parquet:"prompt,list"`
	Messages []struct {
		Role      string `parquet:"role"`
		Content   string `parquet:"content"`
		ToolCalls []struct {
			ID       string `parquet:"id"`
			Function struct {
				Name      string `parquet:"name"`
				Arguments string `parquet:"arguments"`
			} `parquet:"function"`
		} `parquet:"tool_calls,list"`
		ToolCallID string `parquet:"tool_call_id"`
	} `parquet:"messages,list"`
	Tools       string `parquet:"tools"`
	RewardModel struct {
		Style       string `parquet:"style"`
		GroundTruth string `parquet:"ground_truth"`
	} `parquet:"reward_model"`
	ExtraInfo struct {
		Task  string `parquet:"task"`
		Index int64  `parquet:"index"`
	} `parquet:"extra_info"`
	Reward           float64 `parquet:"reward"`
	Advantage        float64 `parquet:"advantage"`
	Group            string  `parquet:"group"`
	RewardComponents string  `parquet:"reward_components"`
}

func TestParquetColumns(t *testing.T) {
	env := rltest.Load(t, "store")
	path := filepath.Join(t.TempDir(), "out.parquet")
	out, err := rl.CreateParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := rl.Run(context.Background(), []*runtime.Env{env}, rl.Oracle{}, rl.Config{Group: 2, Tasks: "cancel-*"}, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.ReadFile[verlRow](path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != sum.Rollouts || len(rows) == 0 {
		t.Fatalf("%d rows for %d rollouts", len(rows), sum.Rollouts)
	}
	for _, r := range rows {
		if r.DataSource != "store" || r.RewardModel.GroundTruth != r.ExtraInfo.Task || r.Reward != 1 {
			t.Fatalf("row: %+v", r)
		}
		if len(r.Prompt) != 2 || r.Prompt[0].Role != "system" || r.Prompt[1].Role != "user" {
			t.Fatalf("prompt: %+v", r.Prompt)
		}
		a, tm := r.Messages[2], r.Messages[3]
		if a.Role != "assistant" || len(a.ToolCalls) != 1 || tm.ToolCallID != a.ToolCalls[0].ID || !json.Valid([]byte(a.ToolCalls[0].Function.Arguments)) {
			t.Fatalf("messages: %+v / %+v", a, tm)
		}
		var tools []map[string]any
		if json.Unmarshal([]byte(r.Tools), &tools) != nil || len(tools) != len(env.Tools()) {
			t.Fatalf("tools column: %.100s", r.Tools)
		}
		var comp map[string]float64
		if json.Unmarshal([]byte(r.RewardComponents), &comp) != nil || comp["all_passed"] != 1 {
			t.Fatalf("reward components: %s", r.RewardComponents)
		}
	}
	// Every row carries the tools, yet the file holds each list once per
	// row group: the column is dictionary-encoded (4,000 rollouts of a
	// 59-tool env: 32.5 MB plain, 1.8 MB so; docs/ROLLOUT.md).
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if strings.Join(c.MetaData.PathInSchema, ".") == "tools" {
				found = true
				if !slices.Contains(c.MetaData.Encoding, format.RLEDictionary) {
					t.Errorf("tools column encodings %v: not dictionary-encoded", c.MetaData.Encoding)
				}
			}
		}
	}
	if !found {
		t.Error("no tools column chunk")
	}
}

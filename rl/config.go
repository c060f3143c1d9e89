package rl

import "fmt"

// Config shapes a rollout run. Zero values take the defaults noted.
type Config struct {
	Group       int    // rollouts per task (GRPO's G); default 8
	Seed        int64  // base seed: rollout i of a group runs on seed Seed+i
	MaxTurns    int    // assistant turns per rollout; default 20
	MaxTokens   int    // completion tokens per rollout; 0: no budget
	Concurrency int    // rollouts in flight at once; default 64
	Tasks       string // comma-separated globs over task ids (path.Match); "": all

	Format    ToolFormat // where tool calls are read from; default auto
	MetaTools bool       // offer AWM's list_tools/call_tool instead of the tools

	User      User   // nil: the instruction opens and a text reply ends
	StopToken string // the user's end of conversation; default ###STOP###

	Reward        Reward // default Binary
	Normalize     bool   // divide advantages by the group's standard deviation
	DropEqual     bool   // drop groups whose rewards are all equal (DAPO)
	HistoryWindow int    // >0: split rollouts into one sample per turn, keeping this many earlier turns

	Limits Limits // what one rollout may hold; zero fields take the defaults

	// Progress, when set, is called after each finished rollout, from one
	// goroutine at a time.
	Progress func(done, total int)
}

func (c *Config) defaults() error {
	if c.Group == 0 {
		c.Group = 8
	}
	if c.MaxTurns == 0 {
		c.MaxTurns = 20
	}
	if c.Concurrency == 0 {
		c.Concurrency = 64
	}
	if c.Format == "" {
		c.Format = FormatAuto
	}
	if c.StopToken == "" {
		c.StopToken = DefaultStopToken
	}
	if c.Reward == nil {
		c.Reward = Binary{}
	}
	switch {
	case c.Group < 1:
		return fmt.Errorf("group size %d: want at least 1", c.Group)
	case c.MaxTurns < 1:
		return fmt.Errorf("max turns %d: want at least 1", c.MaxTurns)
	case c.MaxTokens < 0:
		return fmt.Errorf("max tokens %d: want 0 (none) or more", c.MaxTokens)
	case c.Concurrency < 1:
		return fmt.Errorf("concurrency %d: want at least 1", c.Concurrency)
	case c.HistoryWindow < 0:
		return fmt.Errorf("history window %d: want 0 (off) or more", c.HistoryWindow)
	}
	if err := c.Limits.defaults(); err != nil {
		return err
	}
	_, err := ParseToolFormat(string(c.Format))
	return err
}

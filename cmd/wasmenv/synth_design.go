package main

import (
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/synth/design"
)

// designTimeout bounds one request of the model route.
const designTimeout = 15 * time.Minute

// designFlags are synth from-db's model route (--llm): a model designs the
// domain over the database and rewrites the tasks' wording (synth/design).
type designFlags struct {
	model, baseURL, keyEnv, replay string
	repairs, batch                 int
}

func (f *designFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.model, "llm", "", "the model route: this chat model designs the domain's actions, rules and policy over the data (each action gated, with repair) and rewrites the tasks' wording (a rewrite is kept only if it passes its gate)")
	fs.StringVar(&f.baseURL, "llm-base-url", "", "API root of --llm's chat-completions endpoint (default $OPENAI_BASE_URL, else "+chatapi.DefaultBaseURL+")")
	fs.StringVar(&f.keyEnv, "llm-api-key-env", "OPENAI_API_KEY", "environment variable that holds --llm's API key (none sent when empty)")
	fs.StringVar(&f.replay, "llm-replay", "", "answer --llm's requests from this recording (internal/relay's record directory) instead of an endpoint: reproduces a recorded run with no model")
	fs.IntVar(&f.repairs, "llm-repairs", design.DefaultRepairs, "repair prompts the design gets after its first answer")
	fs.IntVar(&f.batch, "llm-batch", 20, "tasks per wording prompt")
}

// stage is the model route's stage; nil without --llm.
func (f *designFlags) stage() (*design.Stage, error) {
	if f.model == "" {
		if f.replay != "" {
			return nil, fmt.Errorf("--llm-replay needs --llm (the model the recording was made with)")
		}
		return nil, nil
	}
	if f.repairs < 0 || f.batch < 1 {
		return nil, fmt.Errorf("--llm-repairs must be 0 or more and --llm-batch at least 1")
	}
	key := ""
	if f.keyEnv != "" {
		key = os.Getenv(f.keyEnv)
	}
	client := chatapi.New(chatapi.BaseURL(f.baseURL), key, 1)
	// A design or a batch of forty rewrites is a long answer; a model
	// answering through the relay takes minutes (the default 2 minutes
	// retried, and asked the same question twice).
	client.Timeout = designTimeout
	if f.replay != "" {
		r, err := design.NewReplay(f.replay)
		if err != nil {
			return nil, err
		}
		client.HTTP = &http.Client{Transport: r}
		client.BaseURL = "http://recording.invalid/v1"
	}
	repairs := f.repairs
	if repairs == 0 {
		repairs = -1 // none; design.Stage reads 0 as its default
	}
	return &design.Stage{Client: client, Model: f.model, Repairs: repairs, Batch: f.batch}, nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/synth/llm"
)

// preflight checks, before any work, what a long synth llm run needs and
// says the exact fix when something is missing: the API key (present, or
// explicitly none with --api-key-env ""), the endpoint (reachable, key
// accepted) and the model (listed by the endpoint, when it lists models).
func preflight(ctx context.Context, c *llm.Client, keyEnv string) error {
	if keyEnv != "" && os.Getenv(keyEnv) == "" {
		return fmt.Errorf("$%s is not set: export %s=<your key>, name another variable with --api-key-env, "+
			"or pass --api-key-env \"\" to send no key (a local vLLM or SGLang server)", keyEnv, keyEnv)
	}
	models, err := c.Models(ctx)
	var se *llm.StatusError
	switch {
	case errors.Is(err, llm.ErrNoModelList):
		return nil // the server cannot say; the first request will
	case errors.As(err, &se) && (se.Code == 401 || se.Code == 403):
		fix := fmt.Sprintf("set $%s to a key it accepts", keyEnv)
		if keyEnv == "" {
			fix = "it wants a key: export OPENAI_API_KEY=<your key> (or name the variable with --api-key-env)"
		}
		return fmt.Errorf("%s refused the key (HTTP %d: %s): %s", c.BaseURL, se.Code, se.Message, fix)
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("cannot reach the endpoint %s: %v\n"+
			"start the server, or pass --base-url (or set $OPENAI_BASE_URL) to the API root of one that runs, such as http://127.0.0.1:8000/v1", c.BaseURL, err)
	}
	for _, m := range models {
		if m == c.Model {
			return nil
		}
	}
	shown := models
	if len(shown) > 10 {
		shown = shown[:10]
	}
	list := "none"
	if len(shown) > 0 {
		list = strings.Join(shown, ", ")
		if len(models) > len(shown) {
			list += fmt.Sprintf(" (and %d more)", len(models)-len(shown))
		}
	}
	return fmt.Errorf("%s does not serve the model %q; it serves: %s. Pass --model with one of them (or set $WASMENV_SYNTH_MODEL)", c.BaseURL, c.Model, list)
}

// retryNotice prints each retry, so a slow or absent endpoint does not
// leave the terminal silent.
func retryNotice(w io.Writer, retries int) func(int, time.Duration, error) {
	return func(attempt int, wait time.Duration, err error) {
		fmt.Fprintf(w, "\nretrying in %s (attempt %d of %d failed): %v\n", wait.Round(100*time.Millisecond), attempt, retries+1, err)
	}
}

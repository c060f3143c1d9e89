package chatapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// ErrNoModelList is what Models returns when the server has no /models
// route (404 or 405): it cannot say which models it serves.
var ErrNoModelList = errors.New("chat completions: the server does not list its models")

// Models asks GET /models which models the server serves, once, within
// timeout (0: 15 s): a preflight check before a long run, so an absent
// endpoint, a refused key or a wrong model name is reported at once with
// no retries. A refusal is a *StatusError; a server without the route gives
// ErrNoModelList.
func (c *Client) Models(ctx context.Context, timeout time.Duration) ([]string, error) {
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.BaseURL, "/")+"/models", nil)
	if err != nil {
		return nil, err
	}
	if c.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(hr)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	if err != nil {
		return nil, err
	}
	switch {
	case res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed:
		return nil, ErrNoModelList
	case res.StatusCode != http.StatusOK:
		return nil, &StatusError{Code: res.StatusCode, Message: errorMessage(data), Body: string(data)}
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, ErrNoModelList // not the OpenAI shape: nothing to check against
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

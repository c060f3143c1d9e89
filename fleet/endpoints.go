package fleet

import (
	"net/url"
	"os"
	"strings"

	"github.com/wasmenv/wasmenv/internal/chatapi"
)

// Endpoints is a worker's own say over the model endpoints its jobs
// reach (docs/SCALING.md, "Securing the fleet"). A job names an endpoint
// (a policy's or a simulated user's base URL, an LLM synthesis's); it
// comes from the bus, so it never chooses a credential: the worker sends
// its key only to an endpoint of Allow, and which variable holds the key
// is the worker's KeyEnv, never the job's. A job naming any other
// endpoint fails on this worker, before a request is made.
type Endpoints struct {
	// Allow lists the endpoints jobs may reach, as base URLs
	// (scheme://host[:port][/path]): a job's URL is allowed when it has the
	// same scheme, host and port (the scheme's default when absent) and
	// its path is the entry's path or below it.
	Allow []string
	// KeyEnv names the environment variable whose value is sent as the
	// bearer token to an allowed endpoint; "": no key is sent.
	KeyEnv string
}

// resolve checks a job's endpoint (a policy's "" is $OPENAI_BASE_URL,
// else OpenAI's, as a local run reads it) and returns it with the key to
// send there. A nil *Endpoints is a local run's: the process's own
// environment and flags chose the endpoint, so the key is the one a local
// client reads ("" here: the client reads $OPENAI_API_KEY itself).
func (e *Endpoints) resolve(raw string) (base, key string, err error) {
	base = chatapi.BaseURL(raw)
	if e == nil {
		return base, "", nil
	}
	if !e.allows(base) {
		return "", "", errorf(CodeForbidden, nil, "endpoint %q is not one this worker may reach (its --allow-endpoint)", truncate(base, 200))
	}
	if e.KeyEnv != "" {
		key = os.Getenv(e.KeyEnv)
	}
	return base, key, nil
}

func (e *Endpoints) allows(raw string) bool {
	u, ok := endpointURL(raw)
	if !ok {
		return false
	}
	for _, a := range e.Allow {
		p, ok := endpointURL(a)
		if !ok || p.Scheme != u.Scheme || p.Host != u.Host {
			continue
		}
		if p.Path == "" || u.Path == p.Path || strings.HasPrefix(u.Path, p.Path+"/") {
			return true
		}
	}
	return false
}

// endpointURL parses a base URL into scheme, host:port (the default port
// made explicit, the host lower-cased) and a path without a trailing
// slash. URLs with user info, a query, a fragment or dot segments are not
// endpoints.
func endpointURL(raw string) (*url.URL, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" || u.Hostname() == "" {
		return nil, false
	}
	port := u.Port()
	switch {
	case u.Scheme == "http" && port == "":
		port = "80"
	case u.Scheme == "https" && port == "":
		port = "443"
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, false
	}
	path := strings.TrimRight(u.Path, "/")
	for _, seg := range strings.Split(path, "/") {
		if seg == "." || seg == ".." {
			return nil, false
		}
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return &url.URL{Scheme: u.Scheme, Host: host + ":" + port, Path: path}, true
}

// CheckEndpoints checks a worker's --allow-endpoint entries.
func CheckEndpoints(allow []string) error {
	for _, a := range allow {
		if _, ok := endpointURL(a); !ok {
			return errorf(CodeBadInput, nil, "endpoint %q: want an http:// or https:// base URL without credentials, query or fragment", a)
		}
	}
	return nil
}

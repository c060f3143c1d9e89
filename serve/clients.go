package serve

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
)

// Client is one client of a server: a name, its bearer token, and the most
// episodes it may hold at once (0: no quota beyond MaxEpisodes).
type Client struct {
	Name        string
	Token       string
	MaxEpisodes int
}

// LoadClients reads a clients file: one client per line, "NAME TOKEN
// [MAX_EPISODES]", blank lines and lines starting with # ignored.
func LoadClients(path string) ([]Client, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Client
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 2 || len(fields) > 3 {
			return nil, fmt.Errorf("%s:%d: want NAME TOKEN [MAX_EPISODES]", path, n)
		}
		c := Client{Name: fields[0], Token: fields[1]}
		if len(fields) == 3 {
			if c.MaxEpisodes, err = strconv.Atoi(fields[2]); err != nil || c.MaxEpisodes < 1 {
				return nil, fmt.Errorf("%s:%d: MAX_EPISODES %q is not a positive number", path, n, fields[2])
			}
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// setClients checks Options.Clients and adds the single Token's client.
func (s *Server) setClients() error {
	clients := append([]Client(nil), s.opts.Clients...)
	if s.opts.Token != "" {
		clients = append(clients, Client{Name: "default", Token: s.opts.Token})
	}
	names, tokens := map[string]bool{}, map[string]bool{}
	for _, c := range clients {
		if c.Name == "" || c.Token == "" {
			return fmt.Errorf("serve: a client needs a name and a token")
		}
		if names[c.Name] || tokens[c.Token] {
			return fmt.Errorf("serve: client %q: duplicate name or token", c.Name)
		}
		names[c.Name], tokens[c.Token] = true, true
	}
	s.clients = clients
	return nil
}

// authenticate finds the client whose token the request bears.
func (s *Server) authenticate(r *http.Request) (string, bool) { return ClientOf(s.clients, r) }

// ClientOf finds the client of clients whose token the request bears, as
// a Server does (a gateway in front of servers checks its own routes so).
// Every token is compared, in constant time, so timing tells nothing.
func ClientOf(clients []Client, r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	const p = "Bearer "
	if len(h) < len(p) || !strings.EqualFold(h[:len(p)], p) {
		return "", false
	}
	got := strings.TrimSpace(h[len(p):])
	name, ok := "", false
	for _, c := range clients {
		if sameToken(got, c.Token) {
			name, ok = c.Name, true
		}
	}
	return name, ok
}

// sameToken compares two tokens in time that does not depend on where
// they differ, nor on their lengths: subtle.ConstantTimeCompare returns at
// once on a length mismatch (issue 25 finding 13), so it compares their
// SHA-256 digests, always 32 bytes.
func sameToken(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

func (s *Server) quota(name string) int {
	for _, c := range s.clients {
		if c.Name == name {
			return c.MaxEpisodes
		}
	}
	return 0
}

type clientKey struct{}

func withClient(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, clientKey{}, name)
}

// clientFrom is the authenticated client of a request's context ("" when
// the server has no clients).
func clientFrom(ctx context.Context) string {
	name, _ := ctx.Value(clientKey{}).(string)
	return name
}

// get looks up an episode of the request's client: another client's
// episode is as absent as one that never existed.
func (s *Server) get(ctx context.Context, id string) *episode {
	e := s.table.get(id)
	if e == nil || e.owner != clientFrom(ctx) {
		return nil
	}
	return e
}

func errQuota(name string, max int) *apiError {
	e := errf(http.StatusTooManyRequests, CodeQuota, "client %s holds its maximum of %d episodes; delete some first", name, max)
	e.retryAfter = 1
	return e
}

package fleet

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
)

// The wire of jobs, results and dead letters: every subject and header,
// and how each message is bound to its job and to a fleet member
// (docs/SCALING.md, "Securing the fleet").
//
// A job's Digest is the SHA-256 of the job as the driver planned it (its
// run, index and body: bundle, env, task, settings, policy), without the
// attempt: the driver stamps it, the worker echoes it in the result and in
// a dead letter, and the driver takes a result or a dead letter only when
// it echoes the digest of its own job of that index. A result made under
// other settings (a run id resumed with other flags) or for another job is
// not this job's answer.
//
// With a fleet key (a secret shared by the drivers and workers of a fleet,
// from their own configuration: --fleet-key FILE) every job, result and
// dead letter carries an HMAC-SHA256 under it (headerMAC): a worker runs
// only jobs a driver signed, and a driver takes only results and dead
// letters a worker signed, over the run, the index, the digest, the
// body's SHA-256 and the summary. A publisher on the bus without the key
// can then neither forge a result nor end a run. Who may publish or read
// at all is the bus's own business: NATS accounts and per-role subject
// permissions (docs/SCALING.md).
const (
	subjectJobs    = "wasmenv.jobs."
	subjectResults = "wasmenv.results."
	subjectDead    = "wasmenv.dead."

	headerIndex   = "Wasmenv-Index"
	headerDigest  = "Wasmenv-Digest"  // the job's digest, echoed
	headerSummary = "Wasmenv-Summary" // the group's rl.Summary as JSON
	headerBodySum = "Wasmenv-Body-Sha256"
	headerObject  = "Wasmenv-Object" // the result's body is this object of BucketResults
	// headerEnvObject: the result's body is this object of BucketEnvs.
	headerEnvObject = "Wasmenv-Env-Object"
	headerMAC       = "Wasmenv-Mac" // hex HMAC-SHA256 under the fleet key
)

// MinFleetKey is the fewest bytes a fleet key may have.
const MinFleetKey = 32

// ReadFleetKey reads a fleet key file: at least MinFleetKey bytes (a
// trailing newline is not part of it), readable by its owner alone.
// Make one with `head -c 32 /dev/urandom | base64 > fleet.key; chmod 600
// fleet.key`.
func ReadFleetKey(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, errorf(CodeBadInput, err, "fleet key")
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, errorf(CodeBadInput, nil, "fleet key %s is readable by others (mode %v): chmod 600 it", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, errorf(CodeBadInput, err, "fleet key")
	}
	b = []byte(strings.TrimRight(string(b), "\r\n"))
	if len(b) < MinFleetKey {
		return nil, errorf(CodeBadInput, nil, "fleet key %s has %d bytes: want at least %d (head -c 32 /dev/urandom | base64)", path, len(b), MinFleetKey)
	}
	return b, nil
}

// digest stamps j with its digest (see above) and returns it.
func (j *Job) stampDigest() string {
	c := *j
	c.Attempt, c.Digest = "", ""
	b, _ := json.Marshal(&c)
	sum := sha256.Sum256(b)
	j.Digest = hex.EncodeToString(sum[:])
	return j.Digest
}

// mac is the HMAC-SHA256 of the parts under key, each part
// length-prefixed so that no two lists of parts sign alike.
func mac(key []byte, kind string, parts ...string) string {
	h := hmac.New(sha256.New, key)
	for _, p := range append([]string{kind}, parts...) {
		h.Write([]byte(strconv.Itoa(len(p))))
		h.Write([]byte{':'})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// macOK reports whether got is the MAC of the parts under key.
func macOK(key []byte, got, kind string, parts ...string) bool {
	want := mac(key, kind, parts...)
	return hmac.Equal([]byte(got), []byte(want))
}

// signJob signs a job message's bytes (no key: nothing).
func signJob(key []byte, m *nats.Msg) {
	if key != nil {
		m.Header.Set(headerMAC, mac(key, "job", m.Subject, string(m.Data)))
	}
}

// jobSigned reports whether a job message was signed under key (no key:
// every job is taken).
func jobSigned(key []byte, subject string, data []byte, h nats.Header) bool {
	return key == nil || macOK(key, h.Get(headerMAC), "job", subject, string(data))
}

// resultParts are what a result's MAC covers.
func resultParts(subject string, h nats.Header) []string {
	return []string{subject, h.Get(headerIndex), h.Get(headerDigest), h.Get(headerBodySum), h.Get(headerSummary)}
}

// signDead signs a dead letter's bytes (no key: nothing).
func signDead(key []byte, m *nats.Msg) {
	if key != nil {
		m.Header.Set(headerMAC, mac(key, "dead", m.Subject, string(m.Data)))
	}
}

func bodySum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

package runtime

import (
	"cmp"
	"time"
	"unsafe"

	"github.com/wasmenv/wasmenv/envpkg"
)

// capLimits bounds the limits a bundle asks for by envpkg's maxima (a
// hand-made bundle skips the compiler's checks; a call_timeout of 2^62 ms
// would overflow a time.Duration) and by the server's caps.
func capLimits(l envpkg.Limits, o Options) envpkg.Limits {
	clamp := func(v, def, hi int64, capv int64) int64 {
		if v <= 0 {
			v = def
		}
		v = min(v, hi)
		if capv > 0 {
			v = min(v, capv)
		}
		return v
	}
	d := envpkg.DefaultLimits
	capMS := o.MaxCallTimeout.Milliseconds()
	if o.MaxCallTimeout > 0 {
		capMS = max(capMS, 1)
	}
	return envpkg.Limits{
		CallTimeoutMS:  clamp(l.CallTimeoutMS, d.CallTimeoutMS, envpkg.MaxCallTimeoutMS, capMS),
		MemoryMB:       int(clamp(int64(l.MemoryMB), int64(d.MemoryMB), envpkg.MaxMemoryMB, int64(o.MaxMemoryMB))),
		MaxOutputBytes: int(clamp(int64(l.MaxOutputBytes), int64(d.MaxOutputBytes), envpkg.MaxOutputBytesCap, int64(o.MaxOutputBytes))),
		MaxWriteMB:     int(clamp(int64(l.MaxWriteMB), int64(cmp.Or(o.MaxWriteMB, defaultWriteMB)), envpkg.MaxWriteMB, int64(o.MaxWriteMB))),
	}
}

// Limits are an environment's effective limits: the bundle's, capped.
type Limits struct {
	CallTimeout    time.Duration `json:"call_timeout"`
	MemoryMB       int           `json:"memory_mb"`
	MaxOutputBytes int           `json:"max_output_bytes"`
	SQLTimeout     time.Duration `json:"sql_timeout"`
	SQLMemoryMB    int           `json:"sql_memory_mb"`
	MaxWriteMB     int           `json:"max_write_mb"`
}

// Limits reports the limits the environment runs under.
func (e *Env) Limits() Limits {
	return Limits{CallTimeout: e.callTimeout, MemoryMB: e.limits.MemoryMB, MaxOutputBytes: e.limits.MaxOutputBytes,
		SQLTimeout: e.sqlTimeout, SQLMemoryMB: e.sqlMemoryMB, MaxWriteMB: e.limits.MaxWriteMB}
}

// sharedString views the bundle's database as a string without copying it:
// the mvcc snapshot keeps the string, and a copy would double the memory a
// large (or hostile, highly compressed) database costs at load. The bundle's
// DB must not be modified afterwards; nothing in wasmenv does.
func sharedString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

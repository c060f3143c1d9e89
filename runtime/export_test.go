package runtime

// For the external tests (tracking_envs_test.go): the full-scan switch and
// the count of views read on the tracked path.

func SetFullScan(ep *Episode, on bool) { ep.fullScan = on }

func TrackedScans(ep *Episode) int { return ep.trackedScans }

// ParkEveryStep makes every episode of e give its connection back after
// each step (park.go).
func ParkEveryStep(e *Env) { e.maxConns = 0 }

package tools

import (
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// AbuseArgs picks a misbehaviour.
type AbuseArgs struct {
	// What to do.
	Mode string `json:"mode" enum:"loop,memory,panic,huge,recurse,sqlloop,attach,pragma,commit,nilmap,log"`
}

// Abuse misbehaves on purpose so the sandbox can be tested.
func Abuse(args AbuseArgs) (string, error) {
	switch args.Mode {
	case "loop":
		n := 0
		for {
			n++
		}
	case "memory":
		var keep [][]byte
		for {
			keep = append(keep, make([]byte, 1<<20))
		}
	case "panic":
		panic("boom")
	case "huge":
		return strings.Repeat("x", 10<<20), nil
	case "recurse":
		return recurse(0), nil
	case "sqlloop":
		_, err := sdk.Query(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`)
		return "", err
	case "attach":
		_, err := sdk.Exec(`ATTACH 'file:/etc/passwd' AS p`)
		return "", err
	case "pragma":
		_, err := sdk.Query(`PRAGMA writable_schema = 1`)
		return "", err
	case "commit":
		_, err := sdk.Exec(`COMMIT`)
		return "", err
	case "log":
		line := strings.Repeat("l", 1000)
		for i := 0; i < 10000; i++ {
			sdk.Log("%d %s", i, line)
		}
		return "logged", nil
	case "nilmap":
		var m map[string]int
		m["x"] = 1
	}
	return "", nil
}

func recurse(n int) string {
	if n < 0 {
		return ""
	}
	return recurse(n+1) + "x"
}

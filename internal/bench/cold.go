package bench

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	goruntime "runtime"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// Machine describes where the figures were taken.
type Machine struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	MemBytes   int64  `json:"mem_bytes"`
	Go         string `json:"go"`
	OS         string `json:"os"`
}

func machine() Machine {
	m := Machine{Cores: goruntime.NumCPU(), GOMAXPROCS: goruntime.GOMAXPROCS(0), Go: goruntime.Version(), OS: goruntime.GOOS + "/" + goruntime.GOARCH}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		s := bufio.NewScanner(f)
		for s.Scan() {
			if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		fmt.Sscanf(strings.TrimPrefix(strings.SplitN(string(b), "\n", 2)[0], "MemTotal:"), "%d", &kb)
		m.MemBytes = kb << 10
	}
	return m
}

// coldStart times bundle on disk → first completed call, median of 5, with
// the compile cache warm (cached) and off (uncached). Baselines: read the
// bundle, materialize the database (a file or an in-memory image), open
// it and run the first call; they have no compile step, so both figures
// are the same measurement.
func coldStart(ctx context.Context, path, name, cache string, w *workload) (ColdStart, error) {
	op := w.pick(rand.New(rand.NewPCG(7, 8)), 0)
	once := func(cacheDir string) (time.Duration, error) {
		t0 := time.Now()
		b, err := envpkg.Read(path)
		if err != nil {
			return 0, err
		}
		var sys system
		switch name {
		case "filecopy":
			sys, err = newFilecopy(b.DB)
		case "serdes":
			sys = &serdesSystem{img: b.DB}
		default:
			opts := runtime.Options{CompileCacheDir: cacheDir}
			if name != "wasmenv" {
				opts.Engine = name
			}
			sys, err = newWasmenv(ctx, name, b, opts)
		}
		if err != nil {
			return 0, err
		}
		defer sys.close()
		ep, err := sys.newEpisode()
		if err != nil {
			return 0, err
		}
		defer ep.close()
		if op.native != nil || name == "wasmenv" || name != "filecopy" && name != "serdes" {
			if err := ep.step(op); err != nil {
				return 0, err
			}
		}
		return time.Since(t0), nil
	}
	med := func(cacheDir string) (float64, error) {
		var ds []time.Duration
		for range 5 {
			d, err := once(cacheDir)
			if err != nil {
				return 0, err
			}
			ds = append(ds, d)
		}
		slices.Sort(ds)
		return float64(ds[len(ds)/2]) / 1e6, nil
	}
	if _, err := once(cache); err != nil { // fill the cache
		return ColdStart{}, err
	}
	var c ColdStart
	var err error
	if c.Cached, err = med(cache); err != nil {
		return c, err
	}
	if name == "filecopy" || name == "serdes" {
		c.Uncached = c.Cached
		return c, nil
	}
	c.Uncached, err = med("off")
	return c, err
}

// bundleSizes fills the bundle sizes: the bundle file for wasmenv's
// engines, the database file for the baselines.
func bundleSizes(path string, b *envpkg.Bundle, rep *Report) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	bundle := Sizes{Raw: int64(len(raw)), Zstd: zstdSize(raw)}
	db := Sizes{Raw: int64(len(b.DB)), Zstd: zstdSize(b.DB)}
	rep.BundleBytes = bundle
	for name, f := range rep.Baselines {
		if name == "filecopy" || name == "serdes" {
			f.BundleBytes = db
		} else {
			f.BundleBytes = bundle
		}
	}
	return nil
}

func zstdSize(b []byte) int64 {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		return 0
	}
	defer enc.Close()
	return int64(len(enc.EncodeAll(b, nil)))
}

// growDB returns the database grown to at least size bytes with filler rows
// (random text, 1 KiB a row), or db itself if it is larger. The filler goes
// in benchenv's attachments table, or, in another bundle, in a table of
// its own (bench_filler) that no tool reads: the reset figure still pays
// for every page.
func growDB(db []byte, size int64) ([]byte, error) {
	insert := `INSERT INTO attachments (order_id, body) SELECT 1 + abs(random()) %% 8000, hex(randomblob(512)) FROM n`
	return growWith(db, size, func(conn *sqlite3.Conn) (string, error) {
		if hasTable(conn, "attachments") {
			return insert, nil
		}
		if err := conn.Exec(`CREATE TABLE bench_filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`); err != nil {
			return "", err
		}
		return `INSERT INTO bench_filler (body) SELECT hex(randomblob(512)) FROM n`, nil
	})
}

// growWith grows db to at least size bytes by running the INSERT that
// prepare returns (a statement reading n, the row numbers of a batch, with
// %% for %), batch after batch; db itself if it is large enough.
func growWith(db []byte, size int64, prepare func(*sqlite3.Conn) (string, error)) ([]byte, error) {
	if int64(len(db)) >= size {
		return db, nil
	}
	conn, err := sqlite3.Open("file:/bench-grow?vfs=memdb")
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := serdes.Deserialize(conn, "main", db); err != nil {
		return nil, err
	}
	insert, err := prepare(conn)
	if err != nil {
		return nil, err
	}
	for cur := int64(len(db)); cur < size; {
		rows := max(1, min(5000, (size-cur)/1100))
		err := conn.Exec(fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) `+insert, rows))
		if err != nil {
			return nil, err
		}
		stmt, _, err := conn.Prepare(`SELECT page_count * page_size FROM pragma_page_count, pragma_page_size`)
		if err != nil {
			return nil, err
		}
		stmt.Step()
		cur = stmt.ColumnInt64(0)
		stmt.Close()
	}
	return serdes.Serialize(conn, "main")
}

func hasTable(conn *sqlite3.Conn, name string) bool {
	stmt, _, err := conn.Prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`)
	if err != nil {
		return false
	}
	defer stmt.Close()
	stmt.BindText(1, name)
	return stmt.Step()
}

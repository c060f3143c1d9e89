module github.com/wasmenv/wasmenv

go 1.26.8

require (
	github.com/bytecodealliance/wasmtime-go/v39 v39.0.1 // runtime, only with -tags wasmtime (cgo, bundles libwasmtime)
	github.com/cespare/xxhash/v2 v2.3.0 // envpkg, runtime, compiler, synth/llm: content hashes (bundle, state, build cache, stage artifacts)
	github.com/coder/websocket v1.8.15 // serve: OpenEnv /ws and /mcp WebSockets, the episode API at /v1/ws; fleet: relayed through the gateway; internal/loadgen: serve-bench --socket
	github.com/klauspost/compress v1.20.3 // envpkg: zstd for the bundle's database section
	github.com/modelcontextprotocol/go-sdk v1.8.0 // serve: MCP endpoint
	github.com/nats-io/nats-server/v2 v2.15.2 // fleet: embedded NATS server with JetStream (wasmenv cluster, tests); pulls jwt, nkeys, highwayhash, x/crypto, go-tpm
	github.com/nats-io/nats.go v1.55.0 // fleet: JetStream work queue, streams and object store (wasmenv worker, rollout --nats)
	github.com/nats-io/nkeys v0.4.16 // tests: nkey users of a NATS server with auth (cmd/wasmenv, fleet); nats-server's own requirement
	github.com/ncruces/go-sqlite3 v0.35.6 // vfs/mvcc, runtime, compiler: SQLite compiled to wasm, run by wazero
	github.com/ncruces/wbt v1.0.0 // runtime: the page tree of an episode's database file (epvfs.go), as go-sqlite3's mvcc VFS
	github.com/parquet-go/parquet-go v0.32.0 // rl: Parquet trajectory export
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // runtime, envtest: tool argument validation; synth/llm: stage output schemas
	github.com/spf13/cobra v1.10.2 // cmd/wasmenv: the command line
	github.com/spf13/pflag v1.0.9 // cmd/wasmenv tests: cobra's flags, read to check the help text
	github.com/tetratelabs/wazero v1.12.0 // runtime: runs the tool modules (and go-sqlite3's SQLite)
	golang.org/x/sync v0.24.0 // serve: errgroup, the simulated user's openings of a group (bounded, first error wins)
	golang.org/x/text v0.43.0 // runtime, envtest: the English printer jsonschema needs for its validation messages; synth/tasks: unicode/norm (answers matched with or without accents)
	gonum.org/v1/plot v0.17.0 // internal/bench: benchmark plots (pulls fonts, latex, pdf, image)
	gopkg.in/yaml.v3 v3.0.1 // compiler: env.yaml and tasks; synth/emit: writing them
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/andybalholm/brotli v1.1.1 // indirect
	github.com/antithesishq/antithesis-sdk-go v0.8.0-default-no-op // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/google/go-tpm v0.9.8 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/minio/highwayhash v1.0.4 // indirect
	github.com/nats-io/jwt/v2 v2.8.2 // indirect
	github.com/nats-io/nuid v1.0.1 // indirect
	github.com/ncruces/go-sqlite3-wasm/v6 v6.3.35304 // indirect
	github.com/ncruces/julianday v1.0.0 // indirect
	github.com/parquet-go/bitpack v1.0.0 // indirect
	github.com/parquet-go/jsonlite v1.0.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.21 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/twpayne/go-geom v1.6.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/image v0.30.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/time v0.16.0 // indirect
	google.golang.org/protobuf v1.34.2 // indirect
)

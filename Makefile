# The two commands of the README.
.PHONY: demo test bench

# Build an embedded example environment and run one episode end to end.
demo:
	go run ./cmd/wasmenv demo

# Everything CI runs: Go vet and tests (including the MCP TypeScript SDK and
# OpenEnv WebSocket interop tests, which need node and npm), the runtime's
# tests again on the wasmtime engine (cgo), then the Python client's tests
# against a real `wasmenv serve`, then the PyTorch learner's tests (Debian's
# /usr/bin/python3 with python3-torch).
test:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	go vet ./...
	go vet -tags wasmtime ./runtime/
	go test -count=1 -timeout 25m ./...
	go test -count=1 -timeout 10m -tags wasmtime ./runtime/
	cd clients/python && python3 -m unittest -v
	cd rl/learner && /usr/bin/python3 -m unittest discover -s tests -v

# Every benchmark figure in docs/BENCHMARKS.md, in one run (about 8 minutes on
# 2 cores): runtime vs copy/deserialize baselines and wazero vs wasmtime, the
# τ-bench side by side, a synthesized episode against a ported one and replay
# against in-process (issue 35), and the HTTP load test.
bench:
	go build -tags wasmtime -o /tmp/wasmenv-bench ./cmd/wasmenv
	/tmp/wasmenv-bench build bench/testdata/benchenv -o /tmp/benchenv.wasm
	/tmp/wasmenv-bench bench /tmp/benchenv.wasm --json docs/img/bench.json --plots docs/img > docs/img/bench.txt
	go run ./bench/taubench/cmd/taubench -section -out docs/BENCHMARKS-taubench.md -json bench/taubench/results.json
	go run ./bench/taubench/cmd/taubench -env envs/taubench-airline -section -out docs/BENCHMARKS-taubench.md -json bench/taubench/results-airline.json
	go test -run '^$$' -bench BenchmarkEpisode -benchtime 2000x -count 3 ./envs/ > docs/img/episode-bench.txt
	go test -run '^$$' -bench BenchmarkReplay -benchtime 2000x -count 3 ./cmd/wasmenv/ > docs/img/replay-bench.txt
	/tmp/wasmenv-bench build testdata/envs/mini -o /tmp/mini.wasm
	/tmp/wasmenv-bench serve-bench /tmp/mini.wasm --episodes 1000 --calls 1000000 --duration 3m --json > docs/img/serve-bench.json

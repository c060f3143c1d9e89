# The two commands of the README.
.PHONY: demo test bench

# Build an embedded example environment and run one episode end to end.
demo:
	go run ./cmd/wasmenv demo

# Everything CI runs, one stage after another: a gofmt check, Go vet, the Go
# tests (including the MCP TypeScript SDK and OpenEnv WebSocket interop
# tests, which need node and npm), the runtime's tests again on the wasmtime
# engine (cgo), the Python client's tests against a real `wasmenv serve`,
# the PyTorch learner's tests (Debian's /usr/bin/python3 with python3-torch).
# Every stage runs even when an earlier one failed; the failed ones are
# listed at the end and make exits 1. Each stage's command is a variable, so
# one can be replaced (cmd/wasmenv/make_test.go checks the reporting that way).
GOFMT_CHECK = test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
GO_VET = go vet ./... && go vet -tags wasmtime ./runtime/
GO_TEST = go test -count=1 -timeout 25m ./...
GO_TEST_WASMTIME = go test -count=1 -timeout 10m -tags wasmtime ./runtime/
PYTHON_TEST = cd clients/python && python3 -m unittest -v
LEARNER_TEST = cd rl/learner && /usr/bin/python3 -m unittest discover -s tests -v
TEST_STAGES = gofmt vet go-test go-test-wasmtime python-test learner-test

test:
	@failed=$$(mktemp); \
	$(MAKE) -k --no-print-directory FAILED_LOG=$$failed $(addprefix stage-,$(TEST_STAGES)); \
	if [ -s $$failed ]; then \
		echo "make test: FAILED stages:"; sed 's/^/  /' $$failed; rm -f $$failed; exit 1; \
	fi; \
	rm -f $$failed; echo "make test: every stage passed ($(TEST_STAGES))"

# A stage's failure is noted for test's summary (and fails the stage).
noted = || { echo "$(1)" >> "$(or $(FAILED_LOG),/dev/null)"; exit 1; }

stage-gofmt:
	@echo "== gofmt"; ($(GOFMT_CHECK)) $(call noted,gofmt)
stage-vet:
	@echo "== vet"; ($(GO_VET)) $(call noted,vet)
stage-go-test:
	@echo "== go-test"; ($(GO_TEST)) $(call noted,go-test)
stage-go-test-wasmtime:
	@echo "== go-test-wasmtime"; ($(GO_TEST_WASMTIME)) $(call noted,go-test-wasmtime)
stage-python-test:
	@echo "== python-test"; ($(PYTHON_TEST)) $(call noted,python-test)
stage-learner-test:
	@echo "== learner-test"; ($(LEARNER_TEST)) $(call noted,learner-test)

.PHONY: $(addprefix stage-,$(TEST_STAGES))

# Every benchmark figure in docs/BENCHMARKS.md, in one run (about 12 minutes on
# 2 cores): runtime vs copy/deserialize baselines and wazero vs wasmtime (with
# the step path against host SQL), the τ-bench side by side with `wasmenv
# replay` end to end, a synthesized episode against a ported one and replay
# against in-process (issue 35), and the HTTP load test with the server in a
# process of its own (its CPU per call) at 16 and 1,000 episodes, over HTTP and
# over the /v1/ws WebSocket.
bench:
	go build -tags wasmtime -o /tmp/wasmenv-bench ./cmd/wasmenv
	/tmp/wasmenv-bench build bench/testdata/benchenv -o /tmp/benchenv.wasm
	/tmp/wasmenv-bench bench /tmp/benchenv.wasm --json docs/img/bench.json --plots docs/img > docs/img/bench.txt
	go run ./bench/taubench/cmd/taubench -section -out docs/BENCHMARKS-taubench.md -json bench/taubench/results.json -replay-exe /tmp/wasmenv-bench
	go run ./bench/taubench/cmd/taubench -env envs/taubench-airline -section -out docs/BENCHMARKS-taubench.md -json bench/taubench/results-airline.json -replay-exe /tmp/wasmenv-bench
	go test -run '^$$' -bench BenchmarkEpisode -benchtime 2000x -count 3 ./envs/ > docs/img/episode-bench.txt
	go test -run '^$$' -bench BenchmarkReplay -benchtime 2000x -count 3 ./cmd/wasmenv/ > docs/img/replay-bench.txt
	go test -run '^$$' -bench BenchmarkCallHandler -benchtime 20000x -count 3 ./serve/ > docs/img/serve-handler-bench.txt
	go test -run '^$$' -bench 'BenchmarkPython|BenchmarkTaubenchRetailPython' -benchtime 2000x -count 3 ./internal/pywasm/ > docs/img/python-bench.txt
	/tmp/wasmenv-bench build testdata/envs/mini -o /tmp/mini.wasm
	/tmp/wasmenv-bench serve-bench /tmp/mini.wasm --server-process --episodes 16 --calls 200000 --duration 1m --json > docs/img/serve-bench-16.json
	/tmp/wasmenv-bench serve-bench /tmp/mini.wasm --server-process --episodes 1000 --calls 300000 --duration 2m --json > docs/img/serve-bench.json
	# The same over GET /v1/ws: a frame per call, then batch frames (issue 35 item 3).
	/tmp/wasmenv-bench serve-bench /tmp/mini.wasm --server-process --episodes 16 --calls 200000 --duration 1m --socket --json > docs/img/serve-bench-socket-16.json
	/tmp/wasmenv-bench serve-bench /tmp/mini.wasm --server-process --episodes 16 --calls 200000 --duration 1m --socket --conns 2 --batch --json > docs/img/serve-bench-batch-16.json
	/tmp/wasmenv-bench serve-bench /tmp/mini.wasm --server-process --episodes 1000 --calls 300000 --duration 2m --socket --json > docs/img/serve-bench-socket.json
	/tmp/wasmenv-bench serve-bench /tmp/mini.wasm --server-process --episodes 1000 --calls 300000 --duration 2m --socket --batch --json > docs/img/serve-bench-batch.json

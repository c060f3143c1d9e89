# The two commands of the README.
.PHONY: demo test

# Build an embedded example environment and run one episode end to end.
demo:
	go run ./cmd/wasmenv demo

# Everything CI runs: Go vet and tests (including the MCP TypeScript SDK and
# OpenEnv WebSocket interop tests, which need node and npm), then the Python
# client's tests against a real `wasmenv serve`.
test:
	go vet ./...
	go test -count=1 -timeout 25m ./...
	cd clients/python && python3 -m unittest -v

# The two commands of the README.
.PHONY: demo test bench

# Build an embedded example environment and run one episode end to end.
demo:
	go run ./cmd/wasmenv demo

# Everything CI runs.
test:
	go vet ./...
	go test -count=1 -timeout 25m ./...

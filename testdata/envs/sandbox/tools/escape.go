package tools

import (
	"net"
	"os"
	"strings"
)

// counter is package-level state: the compiler refuses it.
var counter int

// ReadFile tries to read a host file.
func ReadFile() (string, error) {
	b, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// ListDir tries to list the root directory.
func ListDir() (string, error) {
	entries, err := os.ReadDir("/")
	if err != nil {
		return "", err
	}
	return strings.Repeat("x", len(entries)), nil
}

// WriteFile tries to create a file.
func WriteFile() (string, error) {
	return "", os.WriteFile("/tmp/wasmenv-sandbox-escape", []byte("x"), 0o644)
}

// Dial tries to open a socket.
func Dial() (string, error) {
	c, err := net.Dial("tcp", "127.0.0.1:22")
	if err != nil {
		return "", err
	}
	c.Close()
	return "connected", nil
}

// Env tries to read the environment.
func Env() (map[string]any, error) {
	return map[string]any{"home": os.Getenv("HOME"), "path": os.Getenv("PATH"), "n": len(os.Environ()), "args": len(os.Args)}, nil
}

// Count increments package-level state.
func Count() (int, error) {
	counter++
	return counter, nil
}

package rl_test

import (
	"testing"

	"github.com/wasmenv/wasmenv/internal/testcache"
)

func TestMain(m *testing.M) { testcache.Main(m) }

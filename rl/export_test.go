package rl

import "github.com/wasmenv/wasmenv/runtime"

// SetEpisodeHook lets tests see every episode the engine opens.
func SetEpisodeHook(f func(*runtime.Episode)) { onEpisode = f }

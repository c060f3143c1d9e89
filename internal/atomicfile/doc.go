// Package atomicfile writes a file so that readers see either the old file
// or the whole new one, never a half-written one: bytes go to a temporary
// file beside the target (a unique name from os.CreateTemp, so two writers
// of one path never share it), which is synced and renamed into place. A
// failed or abandoned write removes the temporary file.
//
// Every file wasmenv writes (bundles, rollouts, reports, synthesis
// artifacts) goes through here, created with mode 0644 like os.WriteFile
// under the usual umask, not CreateTemp's private 0600.
package atomicfile

// Package gen is the part of the guest sdk that only the compiler's
// generated main package uses: the tool dispatcher, the exports the host
// calls (wasmenv_buffer, wasmenv_call), the framing of a call's output
// with its status byte, and the errors generated argument decoders
// return. Tool code never imports it (the compiler's import rules refuse
// it); tool authors use package sdk.
package gen

package runtime

import (
	"context"
	"errors"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

var errClosed = errors.New("wasmenv: closed")

// epKey carries the calling episode in the context of a guest call.
type epKey struct{}

func episodeOf(ctx context.Context) *Episode {
	ep, _ := ctx.Value(epKey{}).(*Episode)
	return ep
}

// maxResponse bounds one SQL response handed to the guest.
const maxResponse = 32 << 20

// instantiateHost defines the "wasmenv" host module the guest imports
// (see sdk/host_wasip1.go).
func (e *Env) instantiateHost(ctx context.Context) error {
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	_, err := e.rt.NewHostModuleBuilder("wasmenv").
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostSQL), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export("sql").
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostTake), []api.ValueType{i32}, nil).Export("take").
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostClock), nil, []api.ValueType{i64}).Export("clock").
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostRandom), nil, []api.ValueType{i64}).Export("random").
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(e.hostLog), []api.ValueType{i32, i32}, nil).Export("log").
		Instantiate(ctx)
	return err
}

// hostSQL runs one request and keeps the response for hostTake; it returns
// the response size, or -1 if the request could not be read at all.
func hostSQL(ctx context.Context, mod api.Module, stack []uint64) {
	ep := episodeOf(ctx)
	req, ok := mod.Memory().Read(uint32(stack[0]), uint32(stack[1]))
	if ep == nil || !ok {
		stack[0] = api.EncodeI32(-1)
		return
	}
	ep.resp = ep.execGuestSQL(ep.resp[:0], req)
	if len(ep.resp) > maxResponse {
		ep.resp = errorResponse(ep.resp[:0], "query result too large (over 32 MiB): select fewer rows or columns")
	}
	stack[0] = api.EncodeI32(int32(len(ep.resp)))
}

func hostTake(ctx context.Context, mod api.Module, stack []uint64) {
	if ep := episodeOf(ctx); ep != nil {
		mod.Memory().Write(uint32(stack[0]), ep.resp)
	}
}

func hostClock(ctx context.Context, mod api.Module, stack []uint64) {
	if ep := episodeOf(ctx); ep != nil {
		stack[0] = uint64(ep.clockNanos())
	}
}

func hostRandom(ctx context.Context, mod api.Module, stack []uint64) {
	if ep := episodeOf(ctx); ep != nil {
		stack[0] = ep.rng.Uint64()
	}
}

const maxLogLine = 4096

func (e *Env) hostLog(ctx context.Context, mod api.Module, stack []uint64) {
	n := uint32(stack[1])
	if n > maxLogLine {
		n = maxLogLine
	}
	if b, ok := mod.Memory().Read(uint32(stack[0]), n); ok && e.log != nil {
		e.log(e.Name(), string(b))
	}
}

func errorResponse(b []byte, msg string) []byte {
	return wire.AppendString(append(b, wire.StatusError), msg)
}

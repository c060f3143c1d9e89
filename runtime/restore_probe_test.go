package runtime

import (
	"bytes"
	"context"
	"testing"
)

// BenchmarkGuestRestore measures what restoring a guest's memory to its
// image after every call would cost (docs/ARCHITECTURE.md, "Isolation"):
// a plain copy of the whole image per op, and the 4 KiB pages one call
// dirties (what a copy-on-write mapping would fault back in).
func BenchmarkGuestRestore(b *testing.B) {
	e, err := LoadBundle(context.Background(), testBundle(b, "mini", false), Options{PoolSize: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ep := newEpisode(b, e, "", 1)
	image := func() []byte {
		inst, err := e.getInstance(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		defer e.putInstance(inst)
		g := inst.g.(*wazeroGuest)
		m, _ := g.mem.Read(0, g.mem.Size())
		return bytes.Clone(m)
	}
	call(b, ep, "get", `{"key":"a"}`)
	for _, c := range [][2]string{{"get", `{"key":"a"}`}, {"put", `{"key":"z","value":"q"}`}, {"list", `{}`}} {
		b.Run(c[0], func(b *testing.B) {
			before := image()
			call(b, ep, c[0], c[1])
			after := image()
			dirty := 0
			for p := 0; p+4096 <= len(after); p += 4096 {
				if !bytes.Equal(after[p:p+4096], before[p:p+4096]) {
					dirty++
				}
			}
			for b.Loop() {
				copy(before, after)
			}
			b.ReportMetric(float64(dirty), "dirty-pages")
			b.ReportMetric(float64(len(after)>>10), "KiB")
		})
	}
}

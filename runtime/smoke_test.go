package runtime

import "testing"

func TestSmoke(t *testing.T) {
	e := loadEnv(t, "mini")
	ep := newEpisode(t, e, "", 1)
	for _, c := range [][2]string{
		{"get", `{"key":"a"}`}, {"get", `{"key":"zz"}`}, {"put", `{"key":"d","value":"date","n":4}`},
		{"list", `{}`}, {"delete", `{"keys":["a","nope"]}`}, {"roll", `{}`}, {"nope", `{}`}, {"get", `{"k":1}`},
		{"abuse", `{"mode":"panic"}`}, {"abuse", `{"mode":"nilmap"}`}, {"abuse", `{"mode":"huge"}`},
		{"abuse", `{"mode":"attach"}`}, {"abuse", `{"mode":"pragma"}`}, {"abuse", `{"mode":"commit"}`},
		{"abuse", `{"mode":"sqlloop"}`}, {"abuse", `{"mode":"loop"}`}, {"abuse", `{"mode":"memory"}`}, {"abuse", `{"mode":"recurse"}`},
		{"get", `{"key":"d"}`},
	} {
		r := call(t, ep, c[0], c[1])
		t.Logf("%s %s -> %+v", c[0], c[1], r)
	}
	d, err := ep.Diff()
	t.Logf("diff %s %v", d, err)
}

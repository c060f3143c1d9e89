package rl

import (
	"reflect"
	"strings"
	"testing"
)

func jsonNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}

// A field added to Rollout must be added to compactLine too, or compact
// files would drop it: the two list the same keys in the same order
// (less the tools, plus the toolset).
func TestCompactLineMirrorsRollout(t *testing.T) {
	var want []string
	for _, n := range jsonNames(reflect.TypeOf(Rollout{})) {
		if n != "tools" {
			want = append(want, n)
		}
	}
	want = append(want, "toolset")
	if got := jsonNames(reflect.TypeOf(compactLine{})); !reflect.DeepEqual(got, want) {
		t.Errorf("compactLine keys\n%v\nRollout keys\n%v", got, want)
	}
	msg := jsonNames(reflect.TypeOf(Message{}))
	if got := jsonNames(reflect.TypeOf(compactMessage{})); !reflect.DeepEqual(got, msg[:len(got)]) || len(msg) != len(got)+1 || msg[len(got)] != "-" {
		t.Errorf("compactMessage keys %v, Message keys %v", got, msg)
	}
	if got, want := jsonNames(reflect.TypeOf(compactCall{})), jsonNames(reflect.TypeOf(ToolCall{})); !reflect.DeepEqual(got, want) {
		t.Errorf("compactCall keys %v, ToolCall keys %v", got, want)
	}
}

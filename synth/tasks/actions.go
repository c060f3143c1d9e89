package tasks

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// A change the business has a word for is asked for in that word: a flag
// or a status a CHECK declares is an action ("deactivate the customer X",
// "mark the product "Chai" as discontinued", "cancel order ORD-1"), not
// "set the active of the customer X to no".

// action phrases setting col of target (a description: "the customer X",
// "my account", "it") to v as the domain action, or "" when there is no
// such word and "change the X of Y to Z" is how a person says it.
func action(col *dbmodel.Column, target string, v any) string {
	attr := attrWords(col.Name)
	flag := !col.Bool && col.Distinct <= 2 && flagWord(col.Name, fmt.Sprint(sqlValue(v))) != ""
	if col.Bool || flag {
		// (A 0/1 column named for a state, as Northwind's Discontinued,
		// is a flag too.)
		on := sqlValue(v) == int64(1)
		switch {
		case strings.HasPrefix(attr, "has ") && !strings.Contains(attr[4:], " "):
			// has_whiteboard: "note that the room "Delta" has a whiteboard now".
			if on {
				return "note that " + target + " now has " + article(attr[4:])
			}
			return "note that " + target + " no longer has " + article(attr[4:])
		case attr == "active" || attr == "enabled":
			if on {
				return "reactivate " + target
			}
			return "deactivate " + target
		case !strings.Contains(attr, " ") && (strings.HasSuffix(attr, "ed") || attr == "available" || attr == "open" || attr == "public" || attr == "visible"):
			if on {
				return "mark " + target + " as " + attr
			}
			if strings.HasSuffix(attr, "ed") {
				return "mark " + target + " as no longer " + attr
			}
			return "mark " + target + " as not " + attr
		}
		return ""
	}
	l := strings.ToLower(col.Name)
	if len(col.Enum) < 2 || col.EnumInferred || !(strings.Contains(l, "status") || strings.Contains(l, "state") || strings.Contains(l, "stage")) {
		return ""
	}
	s, ok := sqlValue(v).(string)
	if !ok || !statusWord(s) {
		return ""
	}
	switch {
	case s == "cancelled" || s == "canceled":
		return "cancel " + target
	case strings.HasSuffix(s, "ed") || s == "paid" || s == "open" || s == "closed" || s == "done" || s == "complete" || s == "active" || s == "inactive":
		return "mark " + target + " as " + s
	}
	return ""
}

// actionTarget is how an action names e: "my account" for the user's own
// row, else its description.
func actionTarget(e *entity) string {
	if e.person {
		return "my account"
	}
	return e.desc
}

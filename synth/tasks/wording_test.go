package tasks

import (
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// TestWording: the phrasings issue 28 quoted ("How many audit log of the
// loan", "Creates a audit log", "the branch of the checked out by of the
// only loan") come out as a person would say them.
func TestWording(t *testing.T) {
	auditLog := &dbmodel.Table{Name: "audit_log"}
	staff := &dbmodel.Table{Name: "staff"}
	loans := &dbmodel.Table{Name: "loans"}
	for _, c := range []struct{ got, want string }{
		{plural(auditLog), "audit logs"},
		{plural(loans), "loans"},
		{plural(staff), "staff"},
		{plural(&dbmodel.Table{Name: "category"}), "categories"},
		{article("audit log"), "an audit log"},
		{article("user"), "a user"},
		{article("order item"), "an order item"},
		{noun(staff), "staff member"},
		{parentDesc("checked_out_by", staff, &entity{desc: "the only loan of the member Ana García"}), "the staff member who checked out the only loan of the member Ana García"},
		{parentDesc("branch", &dbmodel.Table{Name: "branches"}, &entity{desc: "me", person: true}), "my branch"},
		{by("handled_by", &entity{desc: "the staff member Aiko Sato"}), "handled by the staff member Aiko Sato"},
		{attrWords("price_cents"), "price in cents"},
		{attrWords("is_open"), "open"},
		{keyDesc(&dbmodel.Table{Name: "orders"}, "order_number", "ORD-1"), "order ORD-1"},
		{keyDesc(&dbmodel.Table{Name: "products", Label: "name"}, "name", "Desk Lamp"), `the product "Desk Lamp"`},
		{keyDesc(&dbmodel.Table{Name: "customers"}, "email", "a@x.org"), "the customer with email a@x.org"},
		{capitalize("élan"), "Élan"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestKeepValues: the values a rewrite must keep are the quoted names,
// words with digits or @, and argument or allowed values.
func TestKeepValues(t *testing.T) {
	got := keepValues(`Hi. I'm Ana García (email ana@x.org). If my most recent order is still pending, change its status to shipped; the product "Desk Lamp" too.`,
		map[string]bool{"pending": true, "shipped": true, "cancelled": true})
	want := []string{"Desk Lamp", "ana@x.org", "pending", "shipped"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	if acceptRewrite("Please do it.", "Please do it.", nil, "") {
		t.Error("a rewrite with no value to check was kept")
	}
}

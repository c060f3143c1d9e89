package tasks_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/internal/testcache"
	"github.com/wasmenv/wasmenv/synth"
)

func TestMain(m *testing.M) { testcache.Main(m) }

// shopSchema is a small shop as a person would design it: people known by
// email and by first and last name, orders known by their number, a status
// with a closed set of values, a total derived from the order's items, and
// an audit table a trigger fills.
const shopSchema = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, first_name TEXT NOT NULL, last_name TEXT NOT NULL, city TEXT, phone TEXT, created_at TEXT NOT NULL);
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, price_cents INTEGER NOT NULL, stock INTEGER NOT NULL, color TEXT);
CREATE TABLE staff (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, manager_id INTEGER REFERENCES staff(id), desk TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, order_number TEXT NOT NULL UNIQUE, customer_id INTEGER NOT NULL REFERENCES customers(id),
  status TEXT NOT NULL CHECK (status IN ('pending', 'shipped', 'delivered', 'cancelled')), placed_at TEXT NOT NULL, note TEXT,
  handled_by INTEGER REFERENCES staff(id), total_cents INTEGER NOT NULL DEFAULT 0);
CREATE TABLE order_events (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), at TEXT NOT NULL, kind TEXT NOT NULL);
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), product_id INTEGER NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL CHECK (quantity > 0));
CREATE TABLE reviews (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), product_id INTEGER NOT NULL REFERENCES products(id), stars INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5), title TEXT);
`

var (
	firsts = []string{"Ana", "Bruno", "Chloé", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kofi", "Lena"}
	lasts  = []string{"García", "Okafor", "Novak", "Silva", "Brown", "Cohen", "Müller", "Tanaka", "Rossi", "Dubois"}
	cities = []string{"Lisbon", "Lagos", "Prague", "Osaka", "Montréal", "Porto"}
	things = []string{"Desk Lamp", "Notebook", "Fountain Pen", "Backpack", "Water Bottle", "Headphones", "Umbrella", "Mug", "Scarf", "Wallet", "Candle", "Plant Pot"}
	colors = []string{"red", "blue", "green", "black", "white"}
)

// shopDB writes the shop database with deterministic data and returns its
// path.
func shopDB(t testing.TB) string {
	path := filepath.Join(t.TempDir(), "shop.sqlite")
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := rand.New(rand.NewPCG(5, 6))
	ex := func(sql string, args ...any) {
		s, _, err := conn.Prepare(sql)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for i, a := range args {
			switch v := a.(type) {
			case int:
				s.BindInt(i+1, v)
			case string:
				s.BindText(i+1, v)
			case nil:
				s.BindNull(i + 1)
			}
		}
		if err := s.Exec(); err != nil {
			t.Fatal(sql, err)
		}
	}
	if err := conn.Exec(shopSchema + "BEGIN;"); err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, f := range firsts {
		for j, l := range lasts {
			if (i+j)%3 != 0 {
				continue
			}
			n++
			var city any = cities[(i*7+j)%len(cities)]
			if n%6 == 0 {
				city = nil
			}
			ex(`INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?)`, n, fmt.Sprintf("%s.%s%d@example.org", f, l, n), f, l, city, fmt.Sprintf("+351 21 %03d %04d", 100+n, 1000+7*n), fmt.Sprintf("2024-0%d-%02dT10:%02d:00Z", 1+n%9, 1+n%28, n%60))
		}
	}
	for i, p := range things {
		ex(`INSERT INTO products VALUES (?, ?, ?, ?, ?)`, i+1, p, 500+r.IntN(9000), r.IntN(40), colors[r.IntN(len(colors))])
	}
	staff := []string{"Marta Lopes", "Yusuf Demir", "Aiko Sato", "Pavel Horák", "Nia Mensah"}
	for i, name := range staff {
		var manager any
		if i > 0 {
			manager = 1 + (i-1)/2
		}
		ex(`INSERT INTO staff VALUES (?, ?, ?, ?)`, i+1, name, manager, fmt.Sprintf("Desk %c", 'A'+i))
	}
	statuses := []string{"pending", "shipped", "delivered", "cancelled"}
	item, event := 0, 0
	for o := 1; o <= 3*n; o++ {
		var note any
		if o%4 == 0 {
			note = "leave at the door"
		}
		ex(`INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, 0)`, o, fmt.Sprintf("ORD-%05d", 10000+o*37), 1+r.IntN(n), statuses[r.IntN(4)], fmt.Sprintf("2024-%02d-%02d", 1+o%12, 1+o%28), note, 1+r.IntN(len(staff)))
		for range 1 + r.IntN(3) {
			item++
			ex(`INSERT INTO order_items VALUES (?, ?, ?, ?)`, item, o, 1+r.IntN(len(things)), 1+r.IntN(4))
		}
		for k := range 1 + o%2 {
			event++
			ex(`INSERT INTO order_events VALUES (?, ?, ?, ?)`, event, o, fmt.Sprintf("2024-%02d-%02dT09:%02d:00Z", 1+o%12, 1+o%28, k), []string{"placed", "paid"}[k])
		}
	}
	// The total is derived from the items.
	ex(`UPDATE orders SET total_cents = (SELECT SUM(i.quantity * p.price_cents) FROM order_items i JOIN products p ON p.id = i.product_id WHERE i.order_id = orders.id)`)
	for i := 1; i <= 2*n; i++ {
		ex(`INSERT INTO reviews VALUES (?, ?, ?, ?, ?)`, i, 1+r.IntN(n), 1+r.IntN(len(things)), 1+r.IntN(5), []string{"Great", "Not bad", "Broke quickly", "Love it", "Too small"}[r.IntN(5)])
	}
	if err := conn.Exec("COMMIT"); err != nil {
		t.Fatal(err)
	}
	return path
}

// fromDB runs the whole pipeline on db with opts (Out set here).
func fromDB(t *testing.T, db string, opts synth.Options) *synth.Result {
	t.Helper()
	opts.Out = filepath.Join(t.TempDir(), "env")
	if opts.Seed == 0 {
		opts.Seed = 11
	}
	res, err := synth.FromDB(context.Background(), db, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestShowShopTasks prints the tasks made from the shop database (go test -v
// -run ShowShop with SHOW_TASKS=1), for reading.
func TestShowShopTasks(t *testing.T) {
	if testing.Short() || os.Getenv("SHOW_TASKS") == "" {
		t.Skip("set SHOW_TASKS=1")
	}
	res := fromDB(t, shopDB(t), synth.Options{Tasks: 40})
	for _, task := range res.Tasks {
		ans := ""
		if task.Answer != nil {
			ans = task.Answer.Match + ":" + task.Answer.Value
		}
		fmt.Printf("%d\t%s\t%s\t%s\n", len(task.Calls), task.ID, task.Instruction, ans)
	}
}

//go:build unix

package synth_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth"
)

// bigSchema is a 20-table shop; bigDB fills it with n rows per fact table.
var bigTables = []struct{ name, cols, sel string }{
	{"stores", "id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL, city TEXT", "i, 'ST-' || i, 'Store ' || i, 'City ' || (i % 50)"},
	{"suppliers", "id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL", "i, 'supplier' || i || '@example.org', 'Supplier ' || i"},
	{"customers", "id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, first_name TEXT, last_name TEXT, city TEXT, joined_at TEXT", "i, 'c' || i || '@example.org', 'First' || (i % 300), 'Last' || (i % 700), 'City ' || (i % 90), date('2020-01-01', '+' || (i % 1500) || ' days')"},
	{"products", "id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL, price REAL, supplier_id INTEGER REFERENCES suppliers(id), category TEXT CHECK (category IN ('food', 'toys', 'tools', 'books'))", "i, 'SKU-' || i, 'Product ' || i, (i % 1000) / 10.0, 1 + i % 500, CASE i % 4 WHEN 0 THEN 'food' WHEN 1 THEN 'toys' WHEN 2 THEN 'tools' ELSE 'books' END"},
	{"employees", "id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT, store_id INTEGER REFERENCES stores(id), manager_id INTEGER REFERENCES employees(id)", "i, 'e' || i || '@shop.example', 'Employee ' || i, 1 + i % 200, CASE WHEN i > 10 THEN i / 10 END"},
	{"addresses", "id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), line1 TEXT, zip TEXT", "i, 1 + i % N, i || ' Main Street, apartment ' || (i % 90), printf('%05d', i % 99999)"},
	{"orders", "id INTEGER PRIMARY KEY, number TEXT NOT NULL UNIQUE, customer_id INTEGER NOT NULL REFERENCES customers(id), store_id INTEGER REFERENCES stores(id), employee_id INTEGER REFERENCES employees(id), placed_at TEXT, status TEXT CHECK (status IN ('pending', 'shipped', 'delivered', 'cancelled'))", "i, 'ORD-' || i, 1 + (i * 7) % N, 1 + i % 200, 1 + i % 2000, datetime('2023-01-01', '+' || (i % 40000) || ' minutes'), CASE i % 4 WHEN 0 THEN 'pending' WHEN 1 THEN 'shipped' WHEN 2 THEN 'delivered' ELSE 'cancelled' END"},
	{"order_items", "id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), product_id INTEGER NOT NULL REFERENCES products(id), qty INTEGER, price REAL", "i, 1 + i % N, 1 + (i * 13) % 20000, 1 + i % 5, (i % 900) / 10.0"},
	{"payments", "id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), amount REAL, method TEXT, paid_at TEXT", "i, 1 + i % N, (i % 5000) / 10.0, CASE i % 3 WHEN 0 THEN 'card' WHEN 1 THEN 'cash' ELSE 'voucher' END, date('2023-01-01', '+' || (i % 700) || ' days')"},
	{"shipments", "id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), tracking TEXT UNIQUE, carrier TEXT", "i, 1 + i % N, 'TRK' || printf('%09d', i), 'Carrier ' || (i % 7)"},
	{"returns", "id INTEGER PRIMARY KEY, order_item_id INTEGER NOT NULL REFERENCES order_items(id), reason TEXT, created_at TEXT", "i, 1 + (i * 3) % N, 'The item arrived damaged and the box was open, reason code ' || (i % 40), date('2023-02-01', '+' || (i % 600) || ' days')"},
	{"reviews", "id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL REFERENCES products(id), customer_id INTEGER REFERENCES customers(id), stars INTEGER CHECK (stars BETWEEN 1 AND 5), body TEXT", "i, 1 + i % 20000, 1 + (i * 11) % N, 1 + i % 5, 'Review text number ' || i || ' with some words about the product and its use'"},
	{"inventory", "store_id INTEGER NOT NULL REFERENCES stores(id), product_id INTEGER NOT NULL REFERENCES products(id), qty INTEGER, PRIMARY KEY (store_id, product_id)", "1 + i % 200, 1 + i / 200, i % 80"},
	{"purchase_orders", "id INTEGER PRIMARY KEY, number TEXT NOT NULL UNIQUE, supplier_id INTEGER NOT NULL REFERENCES suppliers(id), ordered_at TEXT", "i, 'PO-' || i, 1 + i % 500, date('2022-01-01', '+' || (i % 900) || ' days')"},
	{"po_items", "id INTEGER PRIMARY KEY, purchase_order_id INTEGER NOT NULL REFERENCES purchase_orders(id), product_id INTEGER NOT NULL REFERENCES products(id), qty INTEGER", "i, 1 + i % N, 1 + (i * 17) % 20000, 10 + i % 90"},
	{"promotions", "id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, percent INTEGER, starts_on TEXT", "i, 'PROMO' || i, 5 + i % 40, date('2023-01-01', '+' || (i % 365) || ' days')"},
	{"coupons", "id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, customer_id INTEGER REFERENCES customers(id), promotion_id INTEGER REFERENCES promotions(id)", "i, 'CPN' || printf('%08d', i), 1 + (i * 5) % N, 1 + i % 5000"},
	{"carts", "id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), updated_at TEXT", "i, 1 + i % N, datetime('2024-01-01', '+' || (i % 90000) || ' minutes')"},
	{"cart_items", "cart_id INTEGER NOT NULL REFERENCES carts(id), product_id INTEGER NOT NULL REFERENCES products(id), qty INTEGER, PRIMARY KEY (cart_id, product_id)", "1 + i / 3, 1 + ((i / 3) * 7 + i % 3) % 20000, 1 + i % 4"},
	{"events", "at TEXT, kind TEXT, detail TEXT", "datetime('2024-01-01', '+' || i || ' seconds'), CASE i % 3 WHEN 0 THEN 'login' WHEN 1 THEN 'view' ELSE 'search' END, 'session ' || (i % 9999) || ' looked at page ' || (i % 777)"},
}

// bigDB writes a database of about 100 MB in 20 tables.
func bigDB(t testing.TB, path string, n int) {
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var b strings.Builder
	b.WriteString("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF; BEGIN;\n")
	for _, tb := range bigTables {
		rows := n
		switch tb.name {
		case "stores":
			rows = 200
		case "suppliers":
			rows = 500
		case "products":
			rows = 20000
		case "employees":
			rows = 2000
		case "promotions":
			rows = 5000
		case "inventory":
			rows = 200 * 20000 / 10
		}
		fmt.Fprintf(&b, "CREATE TABLE %s (%s);\n", tb.name, tb.cols)
		fmt.Fprintf(&b, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d) INSERT INTO %s SELECT %s FROM c;\n",
			rows, tb.name, strings.ReplaceAll(tb.sel, "% N", fmt.Sprintf("%% %d", n)))
	}
	b.WriteString("COMMIT;\n")
	if err := conn.Exec(b.String()); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkFromDB100MB synthesizes 100 tasks from a ~100 MB database of
// 20 tables (issue 28: under 2 minutes on 2 cores, with a progress bar);
// tables over the row cap are sampled with their references' closure.
func BenchmarkFromDB100MB(b *testing.B) {
	dir := b.TempDir()
	db := filepath.Join(dir, "shop.sqlite")
	t0 := time.Now()
	bigDB(b, db, 160000)
	fi, _ := os.Stat(db)
	b.Logf("made a %.0f MB database in %.1fs", float64(fi.Size())/(1<<20), time.Since(t0).Seconds())
	for i := 0; b.Loop(); i++ {
		b.ReportMetric(float64(fi.Size())/(1<<20), "db_MB")
		cpu0 := cpuSeconds()
		res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 100, Seed: int64(i), Log: os.Stderr})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(cpuSeconds()-cpu0, "cpu_s")
		for _, t := range res.Summary.Timings {
			b.ReportMetric(t.Seconds, t.Stage+"_s")
		}
		if i == 0 {
			res.Summary.Print(os.Stderr)
		}
	}
}

"""Reference outputs for the derived columns and tables of schema.sql.

The searches read rows that SQLite derives from the records (indexed generated
columns, tables filled by triggers), and list_all_product_types falls back to
the guest where SQLite would not write json.dumps's bytes. The shipped data
reaches none of the edge cases, so each episode here changes the data first
with task setup SQL (new products and users with non-ASCII names and emails, an
int zip, a duplicate product name; a renamed and a deleted product, a moved
user), and the outputs are what τ-bench's tools (bench/taubench/baseline.py,
which follows TOOLS.md) return on the same data changed the same way.

Run from the repository root:
    python3 envs/taubench-retail/gen/derived.py > envs/taubench-retail/testdata/derived_ref.jsonl
"""
import json, os, sys
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bench", "taubench"))
import baseline as b
D = os.path.join(ROOT, "envs", "taubench-retail", "data")

NEW_PRODUCTS = [
 ("9999999999", '{"name": "Caf\\u00e9 Grinder", "product_id": "9999999999", "variants": {"1111111111": {"item_id": "1111111111", "options": {"size": "S"}, "available": true, "price": 12.5}}}'),
 ("9999999998", '{"name": "Water Bottle", "product_id": "9999999998", "variants": {}}'),
]
NEW_USERS = [
 ("zoe_angstrom_1", '{"name": {"first_name": "Zo\\u00eb", "last_name": "\\u00c5ngstr\\u00f6m"}, "address": {"address1": "1 A St", "address2": "", "city": "X", "country": "USA", "state": "NY", "zip": "99999"}, "email": "\\u00c9mile.Zo\\u00eb@Example.com", "payment_methods": {}, "orders": []}'),
 ("int_zip_1", '{"name": {"first_name": "Int", "last_name": "Zip"}, "address": {"address1": "1 A St", "address2": "", "city": "X", "country": "USA", "state": "NY", "zip": 12345}, "email": "int.zip@example.com", "payment_methods": {}, "orders": []}'),
]
def sql_quote(s): return "'" + s.replace("'", "''") + "'"
setup_a = "\n".join(f"INSERT INTO products (id, data) VALUES ({sql_quote(k)}, {sql_quote(v)});" for k, v in NEW_PRODUCTS) + "\n" + \
          "\n".join(f"INSERT INTO users (id, data) VALUES ({sql_quote(k)}, {sql_quote(v)});" for k, v in NEW_USERS)
calls_a = [
 ("list_all_product_types", {}),
 ("get_product_details", {"product_id": "9999999999"}),
 ("find_user_id_by_email", {"email": "\u00e9mile.zo\u00eb@example.com"}),
 ("find_user_id_by_email", {"email": "\u00c9MILE.ZO\u00cb@EXAMPLE.COM"}),
 ("find_user_id_by_email", {"email": "INT.ZIP@example.com"}),
 ("find_user_id_by_name_zip", {"first_name": "ZO\u00cb", "last_name": "\u00e5ngstr\u00f6m", "zip": "99999"}),
 ("find_user_id_by_name_zip", {"first_name": "Int", "last_name": "Zip", "zip": "12345"}),
 ("get_user_details", {"user_id": "zoe_angstrom_1"}),
]
def apply_a(d):
    for k, v in NEW_PRODUCTS: d["products"][k] = json.loads(v)
    for k, v in NEW_USERS: d["users"][k] = json.loads(v)
REPLACED = ("1656367028", '{"name": "Zebra Keyboard", "product_id": "1656367028", "variants": {"1151293680": {"item_id": "1151293680", "options": {"switch type": "linear"}, "available": true, "price": 100.0}}}')
setup_b = """UPDATE products SET data = replace(data, '"name": "Water Bottle"', '"name": "Flask"') WHERE id = '8310926033';
DELETE FROM products WHERE id = '4354588079';
INSERT OR REPLACE INTO products (id, data) VALUES (""" + sql_quote(REPLACED[0]) + ", " + sql_quote(REPLACED[1]) + """);
UPDATE users SET data = replace(data, '"zip": "80279"', '"zip": "11111"') WHERE id = 'noah_brown_6181';"""
calls_b = [
 ("list_all_product_types", {}),
 ("get_product_details", {"product_id": "4354588079"}),
 ("find_user_id_by_name_zip", {"first_name": "Noah", "last_name": "Brown", "zip": "11111"}),
 ("find_user_id_by_name_zip", {"first_name": "Noah", "last_name": "Brown", "zip": "80279"}),
 ("exchange_delivered_order_items", {"order_id": "#W5866402", "item_ids": ["6242772310"], "new_item_ids": ["1111111111"], "payment_method_id": "paypal_8049766"}),
 ("get_product_details", {"product_id": "1656367028"}),
 ("exchange_delivered_order_items", {"order_id": "#W2378156", "item_ids": ["1151293680"], "new_item_ids": ["7706410293"], "payment_method_id": "credit_card_9513926"}),
 ("exchange_delivered_order_items", {"order_id": "#W2378156", "item_ids": ["1151293680"], "new_item_ids": ["1151293680"], "payment_method_id": "credit_card_9513926"}),
]
def apply_b(d):
    d["products"]["8310926033"]["name"] = "Flask"
    del d["products"]["4354588079"]
    # INSERT OR REPLACE gives the row a new rowid: the product moves last,
    # as a Python dict's del and re-insert would
    del d["products"][REPLACED[0]]
    d["products"][REPLACED[0]] = json.loads(REPLACED[1])
    d["users"]["noah_brown_6181"]["address"]["zip"] = "11111"
out = []
for tid, setup, apply, calls in [("derived-insert", setup_a, apply_a, calls_a), ("derived-update", setup_b, apply_b, calls_b)]:
    d = b.load_data(D); apply(d)
    res = [b.step(d, n, dict(a)) for n, a in calls]
    out.append({"id": tid, "setup": setup, "calls": [{"name": n, "arguments": a} for n, a in calls], "outputs": res})
for o in out: print(json.dumps(o))

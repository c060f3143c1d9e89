-- 1,000 users, 500 products, 8,000 orders (about 1 MB), generated so the
-- seed stays small in the repository.
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
INSERT INTO users (id, name, email, balance)
SELECT i, 'User ' || i, 'user' || i || '@example.com', (i * 7919) % 100000 FROM n;

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
INSERT INTO products (id, name, category, price_cents, stock)
SELECT i, 'Product ' || i,
  CASE i % 5 WHEN 0 THEN 'books' WHEN 1 THEN 'garden' WHEN 2 THEN 'kitchen' WHEN 3 THEN 'toys' ELSE 'tools' END,
  100 + (i * 389) % 20000, (i * 31) % 250 FROM n;

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 8000)
INSERT INTO orders (id, user_id, product_id, quantity, status, created_at, note)
SELECT i, 1 + (i * 48271) % 1000, 1 + (i * 16807) % 500, 1 + i % 4,
  CASE i % 4 WHEN 0 THEN 'pending' WHEN 1 THEN 'shipped' WHEN 2 THEN 'delivered' ELSE 'cancelled' END,
  printf('2024-%02d-%02dT%02d:00:00Z', 1 + i % 12, 1 + i % 28, i % 24),
  printf('order %d placed through the web store', i) FROM n;

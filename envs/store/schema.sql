-- Online store: customers, catalog, orders, payments, shipments, returns,
-- gift cards and support tickets. All money is in integer cents.

CREATE TABLE customers (
  customer_id TEXT PRIMARY KEY,              -- e.g. 'C1001'
  first_name  TEXT NOT NULL,
  last_name   TEXT NOT NULL,
  email       TEXT NOT NULL UNIQUE,
  phone       TEXT NOT NULL,
  tier        TEXT NOT NULL DEFAULT 'standard' CHECK (tier IN ('standard', 'gold')),
  created_at  TEXT NOT NULL
);

CREATE TABLE addresses (
  address_id  INTEGER PRIMARY KEY,
  customer_id TEXT NOT NULL REFERENCES customers (customer_id),
  label       TEXT NOT NULL,                 -- 'home', 'work', ...
  line1       TEXT NOT NULL,
  line2       TEXT NOT NULL DEFAULT '',
  city        TEXT NOT NULL,
  state       TEXT NOT NULL,
  zip         TEXT NOT NULL,
  country     TEXT NOT NULL DEFAULT 'US',
  is_default  INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1))
);

CREATE TABLE payment_methods (
  payment_method_id TEXT PRIMARY KEY,        -- 'card_4417', 'paypal_5102'
  customer_id       TEXT NOT NULL REFERENCES customers (customer_id),
  type              TEXT NOT NULL CHECK (type IN ('credit_card', 'paypal')),
  brand             TEXT NOT NULL DEFAULT '',  -- card brand
  last4             TEXT NOT NULL DEFAULT '',  -- card digits
  account_email     TEXT NOT NULL DEFAULT '',  -- paypal account
  is_default        INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1))
);

CREATE TABLE gift_cards (
  code            TEXT PRIMARY KEY,          -- 'GC-8KQ2-5531'
  customer_id     TEXT REFERENCES customers (customer_id), -- NULL: not yet claimed
  initial_cents   INTEGER NOT NULL CHECK (initial_cents > 0),
  balance_cents   INTEGER NOT NULL CHECK (balance_cents >= 0),
  status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  issued_reason   TEXT NOT NULL CHECK (issued_reason IN ('purchase', 'promotion', 'compensation')),
  source_order_id TEXT,                      -- for compensation cards
  expires_at      TEXT NOT NULL,
  created_at      TEXT NOT NULL
);

CREATE TABLE products (
  product_id  TEXT PRIMARY KEY,              -- 'P101'
  name        TEXT NOT NULL,
  category    TEXT NOT NULL,
  description TEXT NOT NULL,
  final_sale  INTEGER NOT NULL DEFAULT 0 CHECK (final_sale IN (0, 1))
);

CREATE TABLE variants (
  variant_id  TEXT PRIMARY KEY,              -- 'V2001'
  product_id  TEXT NOT NULL REFERENCES products (product_id),
  sku         TEXT NOT NULL UNIQUE,
  color       TEXT NOT NULL DEFAULT '',
  size        TEXT NOT NULL DEFAULT '',
  price_cents INTEGER NOT NULL CHECK (price_cents > 0),
  stock       INTEGER NOT NULL CHECK (stock >= 0),
  active      INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1))
);

CREATE TABLE orders (
  order_id       TEXT PRIMARY KEY,           -- '#W1001'
  customer_id    TEXT NOT NULL REFERENCES customers (customer_id),
  status         TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'shipped', 'delivered', 'cancelled')),
  placed_at      TEXT NOT NULL,
  ship_name      TEXT NOT NULL,
  ship_line1     TEXT NOT NULL,
  ship_line2     TEXT NOT NULL DEFAULT '',
  ship_city      TEXT NOT NULL,
  ship_state     TEXT NOT NULL,
  ship_zip       TEXT NOT NULL,
  ship_country   TEXT NOT NULL DEFAULT 'US',
  subtotal_cents INTEGER NOT NULL,
  shipping_cents INTEGER NOT NULL,
  total_cents    INTEGER NOT NULL,
  cancel_reason  TEXT,
  updated_at     TEXT NOT NULL
);

CREATE TABLE order_items (
  item_id          INTEGER PRIMARY KEY,
  order_id         TEXT NOT NULL REFERENCES orders (order_id),
  variant_id       TEXT NOT NULL REFERENCES variants (variant_id),
  quantity         INTEGER NOT NULL CHECK (quantity > 0),
  unit_price_cents INTEGER NOT NULL,
  status           TEXT NOT NULL DEFAULT 'ordered'
                   CHECK (status IN ('ordered', 'cancelled', 'return_requested', 'returned', 'exchange_requested'))
);

CREATE TABLE transactions (
  transaction_id INTEGER PRIMARY KEY,
  order_id       TEXT NOT NULL REFERENCES orders (order_id),
  kind           TEXT NOT NULL CHECK (kind IN ('charge', 'refund')),
  source_type    TEXT NOT NULL CHECK (source_type IN ('credit_card', 'paypal', 'gift_card')),
  source_id      TEXT NOT NULL,              -- payment_method_id or gift card code
  amount_cents   INTEGER NOT NULL CHECK (amount_cents > 0),
  note           TEXT NOT NULL DEFAULT '',
  created_at     TEXT NOT NULL
);

CREATE TABLE shipments (
  shipment_id        TEXT PRIMARY KEY,       -- 'S3001'
  order_id           TEXT NOT NULL REFERENCES orders (order_id),
  carrier            TEXT NOT NULL,
  tracking_number    TEXT NOT NULL,
  status             TEXT NOT NULL CHECK (status IN ('label_created', 'in_transit', 'delivered', 'exception')),
  shipped_at         TEXT,
  estimated_delivery TEXT NOT NULL,          -- date promised to the customer
  delivered_at       TEXT
);

CREATE TABLE returns (
  return_id         TEXT PRIMARY KEY,        -- 'R5001'
  order_id          TEXT NOT NULL REFERENCES orders (order_id),
  type              TEXT NOT NULL CHECK (type IN ('return', 'exchange')),
  status            TEXT NOT NULL CHECK (status IN ('requested', 'received', 'completed')),
  reason            TEXT NOT NULL,
  refund_cents      INTEGER NOT NULL DEFAULT 0,
  refund_method_id  TEXT,                    -- payment_method_id or gift card code
  created_at        TEXT NOT NULL
);

CREATE TABLE return_items (
  return_id      TEXT NOT NULL REFERENCES returns (return_id),
  item_id        INTEGER NOT NULL REFERENCES order_items (item_id),
  new_variant_id TEXT REFERENCES variants (variant_id), -- exchanges only
  PRIMARY KEY (return_id, item_id)
);

CREATE TABLE tickets (
  ticket_id   TEXT PRIMARY KEY,              -- 'T7001'
  customer_id TEXT NOT NULL REFERENCES customers (customer_id),
  order_id    TEXT REFERENCES orders (order_id),
  category    TEXT NOT NULL CHECK (category IN ('damaged_item', 'missing_package', 'wrong_item', 'billing', 'account', 'other')),
  priority    TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high')),
  status      TEXT NOT NULL CHECK (status IN ('open', 'closed')),
  subject     TEXT NOT NULL,
  description TEXT NOT NULL,
  resolution  TEXT NOT NULL DEFAULT '',
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);

INSERT INTO kv (k, v, n) VALUES ('a', 'apple', 1), ('b', 'banana', 2), ('c', 'cherry', 3);

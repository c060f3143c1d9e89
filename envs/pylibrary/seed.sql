INSERT INTO members VALUES
    ('m1', 'Ada Lovelace', 'ada@example.org'),
    ('m2', 'Alan Turing', 'alan@example.org'),
    ('m3', 'Grace Hopper', 'grace@example.org');

INSERT INTO books VALUES
    ('b1', 'Structure and Interpretation of Computer Programs', 'Abelson', 2),
    ('b2', 'The Art of Computer Programming', 'Knuth', 1),
    ('b3', 'Gödel, Escher, Bach', 'Hofstadter', 0),
    ('b4', 'The Mythical Man-Month', 'Brooks', 3);

INSERT INTO loans VALUES
    (1, 'm2', 'b2', '2024-05-20T10:00:00Z', '2024-06-03T10:00:00Z', NULL),
    (2, 'm3', 'b3', '2024-05-01T10:00:00Z', '2024-05-15T10:00:00Z', NULL);

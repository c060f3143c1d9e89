"""Fills the library schema of synth/corpus_shapes_test.go (the shape of issue 26's
newcomer database: 8 tables, a table named with a space, two self-references, a keyless
table, a view, an audit trigger) with deterministic rows, for rollout-size.sh.

usage: python3 library_db.py OUT.sqlite synth/corpus_shapes_test.go
"""
import sqlite3, random, sys
r = random.Random(7)
db = sqlite3.connect(sys.argv[1])
src = open(sys.argv[2], encoding="utf-8").read()  # synth/corpus_shapes_test.go
i = src.index("var librarySQL = `") + len("var librarySQL = `")
db.executescript(src[i:src.index("`", i)])
db.executescript("""CREATE TRIGGER loans_audit AFTER INSERT ON loans BEGIN
  INSERT INTO audit_log(at, action, loan_id) VALUES (NEW.loaned_on, 'checkout', NEW.id); END;""")
first = "Elena Liam Noah Olivia Ava Mateo Sofia Yuki Amir Chloe Daniel Fatima Hugo Ines Jonas Kofi Lena Maya Omar Priya".split()
last = "García Brown Cohen Smith Nguyen Müller Rossi Kowalski Silva Tanaka Okafor Dubois".split()
cities = "Lyon Porto Austin Kyoto Lagos Oslo".split()
for i in range(1, 6):
    db.execute("INSERT INTO branches VALUES (?,?,?)", (i, f"{cities[i-1]} Central Library", cities[i-1]))
for i in range(1, 21):
    f, l = r.choice(first), r.choice(last)
    db.execute("INSERT INTO staff VALUES (?,?,?,?,?,?)", (i, f"{f.lower()}.{l.lower()}{i}@lib.example.org", f, l, r.randint(1,5), None if i <= 3 else r.randint(1,3)))
for i in range(1, 301):
    f, l = r.choice(first), r.choice(last)
    db.execute("INSERT INTO members VALUES (?,?,?,?,?,?,?)", (i, f"{f.lower()}.{l.lower()}{i}@example.org", f, l, f"20{r.randint(15,24)}-{r.randint(1,12):02d}-{r.randint(1,28):02d}", None if r.random()<0.7 else r.randint(1, max(1,i-1)), r.choice(['active']*8+['suspended','closed'])))
words = "Silent River Glass Garden Night Winter Iron Paper Moon Salt Orchard Harbor Last Letter".split()
for i in range(200):
    db.execute('INSERT INTO "book titles" VALUES (?,?,?,?)', (f"978{r.randint(10**9,10**10-1)}", f"The {r.choice(words)} {r.choice(words)}", f"{r.choice(first)} {r.choice(last)}", r.randint(1850, 2024)))
isbns = [x[0] for x in db.execute('SELECT isbn FROM "book titles"')]
for i in range(1, 601):
    db.execute("INSERT INTO copies VALUES (?,?,?,?)", (i, f"BC{100000+i}", r.choice(isbns), r.randint(1,5)))
for i in range(1, 801):
    y, m, d = 2024, r.randint(1,11), r.randint(1,14)
    ret = None if r.random() < 0.3 else f"{y}-{m:02d}-{d+7:02d}"
    db.execute("INSERT INTO loans(copy_id,member_id,checked_out_by,loaned_on,due_on,returned_on,fee_cents) VALUES (?,?,?,?,?,?,?)", (r.randint(1,600), r.randint(1,300), r.randint(1,20), f"{y}-{m:02d}-{d:02d}", f"{y}-{m:02d}-{d+14:02d}", ret, r.choice([0,0,0,50,120])))
for i in range(15):
    db.execute("INSERT OR IGNORE INTO holidays VALUES (?,?)", (f"2024-{r.randint(1,12):02d}-{r.randint(1,28):02d}", r.choice(["Founders Day","Winter Break","Spring Holiday","Reading Day"])))
db.commit()

# Sizing for issue 35 item B (not done in round 9): how many distinct check
# statements each shipped environment's tasks hold, and how many shapes remain
# when string literals, then also numeric literals, become parameters. The
# regexes are approximate (they also turn a table name passed as a string,
# wasmenv_written('t'), into a parameter): an estimate, not a renderer.
import json, re, glob
strre = re.compile(r"'(?:[^']|'')*'")
numre = re.compile(r"(?<![\w.\"])-?\d+(?:\.\d+)?(?![\w\"])")
for f in sorted(glob.glob('envs/*/tasks.jsonl')):
    sqls = [c['sql'] for l in open(f) for c in (json.loads(l).get('checks') or []) if c.get('sql')]
    if not sqls:
        continue
    d = set(sqls)
    s1 = {strre.sub('?', s) for s in d}
    s2 = {numre.sub('?', strre.sub('?', s)) for s in d}
    print(f.split('/')[1], len(sqls), 'checks, distinct', len(d), '| strings as ?', len(s1), '| and numbers', len(s2))

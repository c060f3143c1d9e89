package tasks

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// finishRead ends with a question: an attribute of cur, how many rows
// refer to it (with or without a filter), which of them ranks first, or
// what a number of theirs adds up to.
func (w *walker) finishRead(c *chain, cur *entity) (envpkg.Task, string, error) {
	pick := w.rng.IntN(6)
	if c.aggregate {
		pick = w.rng.IntN(4)
		for range 4 {
			if t, kind, err := w.aggregateRead(c, cur, pick); err == nil || !errors.Is(err, errDeadEnd) {
				return t, kind, err
			}
			pick = (pick + 1) % 4
		}
		return envpkg.Task{}, "", errDeadEnd
	}
	if hops(cur.desc) > 0 && !cur.mine {
		// Counting or ranking the rows of a row reached on the way ("the
		// salaries of the employees managed by the only employee of the
		// job X") walks the schema: ask about the row itself.
		pick = 5
	}
	switch pick {
	case 0:
		if t, err := w.countChildren(c, cur); err == nil {
			return t, "count", nil
		} else if !errors.Is(err, errDeadEnd) {
			return t, "", err
		}
	case 1:
		if t, err := w.countFiltered(c, cur); err == nil {
			return t, "count-filtered", nil
		} else if !errors.Is(err, errDeadEnd) {
			return t, "", err
		}
	case 2:
		if t, err := w.topChild(c, cur); err == nil {
			return t, "top", nil
		} else if !errors.Is(err, errDeadEnd) {
			return t, "", err
		}
	case 3:
		if t, err := w.sumChildren(c, cur); err == nil {
			return t, "sum", nil
		} else if !errors.Is(err, errDeadEnd) {
			return t, "", err
		}
	}
	cols := askable(cur.table)
	w.rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	for _, col := range cols {
		v := cur.row[col.Name]
		if yesNo(col) {
			continue // asked as a count instead (yesNo); skipped here, not left out of cols, so the draws of other tasks stay as they were
		}
		if v == nil || !sayable(v) || col.Name == cur.namedBy || strings.Contains(cur.desc, " "+attrWords(col.Name)+" ") || stated(c, cur, fmt.Sprint(sqlValue(v))) {
			continue
		}
		val := fmt.Sprint(sqlValue(v))
		nameish := col.Name == cur.table.Label || strings.Contains(strings.ToLower(col.Name), "name") || strings.Contains(strings.ToLower(col.Name), "title")
		if c.me && placeTable(cur.table) {
			continue // an employee knows where their department is, a customer where their store is
		}
		if nameish && (codeNamed(c.entities[0]) || cur.parent != nil && cur.parent.person && worker(cur.parent.table)) {
			continue // "the name of country BR" decodes what was typed; an employee knows their department's name
		}
		if owner, _ := placeOwner(cur); (cur.person || owner == "my" || myPlace(cur)) && (personalDetail(col.Name) || worker(cur.table) || myPlace(cur)) {
			continue // no one asks for their own address, or (at work) their own title
		}
		if val == "0" {
			continue // "none" is as right as "0", and a wrong row gives 0 too (see countAnswer)
		}
		if col.Kind == dbmodel.Text && utf8.RuneCountInString(strings.TrimSpace(val)) < 2 {
			continue
		}
		c.distractors = append(c.distractors, w.otherValues(cur, col)...)
		c.asked = cur.table.Name + "." + col.Name
		answer := c.answer(cur.table, col.Name, v)
		if a := timeAnswer(col.Name, val); a != nil {
			answer = a
		} else if a := dayAnswer(col.Name, val); a != nil {
			answer = a
		} else if others := containedIn(val, w.valuesLike(cur.table, col, val)); len(others) > 0 {
			// Another allowed value holds this one ("basic economy" and
			// "economy"): the check must tell them apart, and the gates
			// try the other as a wrong answer.
			c.distractors = append(c.distractors, others...)
			if a := wholeValue(val, w.valuesLike(cur.table, col, val)); a != nil {
				answer = a
			}
		}
		answer = alone(answer, cur.table, col, val)
		return envpkg.Task{Instruction: w.askAttr(cur, col), Answer: answer}, "ask", nil
	}
	return envpkg.Task{}, "", errDeadEnd
}

// codeNamed: e was named by a short code (country BR, region 2): what its
// name is, or its region's, is the code's meaning, not a question.
func codeNamed(e *entity) bool {
	if e == nil || e.table == nil || !e.table.IsKey(e.namedBy) {
		return false
	}
	v := fmt.Sprint(sqlValue(e.row[e.namedBy]))
	return len(v) <= 3
}

// myPlace: the user's own city, country or region ("my city"): they know
// what it is called.
func myPlace(e *entity) bool {
	if e.table == nil || !strings.HasPrefix(e.desc, "my ") {
		return false
	}
	lvl, _ := placeLevel(e.table.Singular())
	return lvl != levelNone && lvl != levelPhone
}

// aggregateRead is the question kind-th of the aggregate ones about the
// rows referring to cur: count, count with a filter, top, sum.
func (w *walker) aggregateRead(c *chain, cur *entity, kind int) (envpkg.Task, string, error) {
	var t envpkg.Task
	var err error
	name := []string{"count", "count-filtered", "top", "sum"}[kind]
	switch kind {
	case 0:
		t, err = w.countChildren(c, cur)
	case 1:
		t, err = w.countFiltered(c, cur)
	case 2:
		t, err = w.topChild(c, cur)
	default:
		t, err = w.sumChildren(c, cur)
	}
	return t, name, err
}

// personalDetail: a detail of a person that the person knows (their
// address, phone, email, names, birth date): asked about themselves it
// makes a contrived request.
func personalDetail(col string) bool {
	w := " " + words(col) + " "
	return dbmodel.ContainsAny(w, " address", " city ", " state ", " region ", " province ", " country ", " postal ", " zip ", " phone ", " fax ", " email ", " name ", " birth ", " date of birth ", " gender ", " company ", " street ", " district ", " contact ")
}

// askAttr asks for one attribute of e.
func (w *walker) askAttr(e *entity, col *dbmodel.Column) string {
	attr := attrOf(e.table, col.Name)
	if e.via != "" && e.parent != nil && !e.parent.person && (col.Name == e.table.Label || e.table.IsNatural(col.Name)) {
		// "Which airport does flight HAT089 leave from?", not "the iata
		// of the origin of flight HAT089".
		switch role := roleFor(e.via, e.table); {
		case slices.Contains(departRoles, role):
			return fmt.Sprintf("Which %s does %s leave from?", noun(e.table), e.parent.desc)
		case slices.Contains(arriveRoles, role):
			return fmt.Sprintf("Which %s does %s go to?", noun(e.table), e.parent.desc)
		}
	}
	if contact := e.row[e.namedBy]; contact != nil && strings.HasPrefix(words(e.namedBy), "contact name") && strings.Contains(strings.ToLower(col.Name), "company") {
		// "Which company does Daniel Tonini work for?", not "the company
		// name of the customer Daniel Tonini works at".
		return oneOf(w.rng, fmt.Sprintf("Which company does %s work for?", sqlValue(contact)), fmt.Sprintf("Could you tell me which company %s works for?", sqlValue(contact)))
	}
	if q := w.whichQuestion(e, col, attr); q != "" {
		return q
	}
	if strings.Contains(attr, "description") && lookupName(e.table, col) {
		// Northwind's RegionDescription is the region's name ("Eastern"):
		// "Which region is territory 90405 in?", not "the description of
		// the region of territory 90405" (judged round 3).
		if e.via != "" && e.parent != nil && !e.parent.person {
			return oneOf(w.rng, fmt.Sprintf("Which %s is %s in?", noun(e.table), e.parent.desc), fmt.Sprintf("Could you tell me which %s %s is in?", noun(e.table), e.parent.desc))
		}
		attr = "name"
	}
	l := strings.ToLower(col.Name)
	if verb, ok := strings.CutSuffix(l, "_at"); ok && !e.person && !strings.Contains(verb, "_") {
		if strings.HasSuffix(verb, "ed") { // placed_at: "When was X placed?"
			return oneOf(w.rng, fmt.Sprintf("When was %s %s?", e.desc, verb), fmt.Sprintf("Could you tell me when %s was %s?", e.desc, verb))
		}
		if stem, ok := strings.CutSuffix(verb, "s"); ok && len(stem) > 2 { // expires_at: "When does X expire?"
			return fmt.Sprintf("When does %s %s?", e.desc, stem)
		}
	}
	if _, isText := sqlValue(e.row[col.Name]).(string); !isText && countWords(attr) && !e.person {
		// "How many units in stock does the product X have?", not "What is
		// the units in stock of".
		return oneOf(w.rng, fmt.Sprintf("How many %s does %s have?", attr, e.desc), fmt.Sprintf("Could you tell me how many %s %s has?", attr, e.desc))
	}
	if _, isText := sqlValue(e.row[col.Name]).(string); !isText && measured(col.Name) && !e.person && !strings.HasSuffix(attr, " duration") {
		// (A "rental duration" has no unit to ask in: asked plainly.)
		// "How long is the track X, in milliseconds?", not "How many
		// milliseconds does the track X have?".
		how, unit := "long", attr
		if l := strings.ToLower(col.Name); strings.Contains(l, "bytes") || strings.Contains(l, "size") {
			how = "large"
		}
		if unit == "length" || unit == "duration" {
			return fmt.Sprintf("How %s is %s?", how, e.desc)
		}
		return fmt.Sprintf("How %s is %s, in %s?", how, e.desc, unit)
	}
	if _, isText := sqlValue(e.row[col.Name]).(string); !isText && strings.HasSuffix(attr, "s") && !strings.Contains(attr, " ") {
		return oneOf(w.rng, fmt.Sprintf("How many %s %s?", attr, has(e)), fmt.Sprintf("Could you tell me how many %s %s?", attr, hasPlain(e)))
	}
	motive := oneOf(w.rng, readMotives...)
	return oneOf(w.rng,
		fmt.Sprintf("What is %s?", of(attr, e)),
		fmt.Sprintf("Could you tell me %s?", of(attr, e)),
		fmt.Sprintf("I need %s %s. What is it?", of(attr, e), motive),
		fmt.Sprintf("Can you look up %s? I need it %s.", of(attr, e), motive),
		fmt.Sprintf("Please tell me %s.", of(attr, e)),
		fmt.Sprintf("What's %s? I need it %s.", of(attr, e), motive))
}

// secret: a column no assistant reads out (a password, its hash, a
// token), or that means nothing read out (a photo's file path).
func secret(col string) bool {
	l := strings.ToLower(col)
	return dbmodel.ContainsAny(l, "password", "passwd", "hash", "token", "secret", "photo", "path", "picture", "image")
}

// askable lists the columns a question may ask for: anything but keys,
// references and binary data.
func askable(t *dbmodel.Table) []*dbmodel.Column {
	var out []*dbmodel.Column
	for _, c := range t.Columns {
		if t.IsKey(c.Name) && !t.IsNatural(c.Name) || t.ForeignKeyOf(c.Name) != nil || c.Kind == dbmodel.Blob || c.Bool || bookkeeping(c.Name) || secret(c.Name) || !c.Sayable() {
			continue
		}
		out = append(out, c)
	}
	return out
}

// yesNo reports whether a text column holds only yes and no (airline's
// insurance). Its value is asked as a count ("How many of my reservations
// have insurance?", aggregate.go), not read out: no rule on free text tells
// "no" from "no idea", or accepts "it isn't insured" (judged round 3).
func yesNo(c *dbmodel.Column) bool {
	for _, v := range c.Enum {
		switch strings.ToLower(v) {
		case "yes", "no", "y", "n", "true", "false":
		default:
			return false
		}
	}
	return len(c.Enum) > 0
}

// answerFor is the answer rule for a value: a number as a number; a date
// and time as a person writes it (see dateAnswer); a short word as a whole
// word (so "NC" is not found inside "SYNC"); other text as text contained
// in the answer.
// plainNumber is a number written plainly: no leading zero, sign or
// group separator.
var plainNumber = regexp.MustCompile(`^(0|[1-9][0-9]*)(\.[0-9]+)?$`)

func answerFor(v any) *envpkg.Answer {
	s := fmt.Sprint(sqlValue(v))
	if _, isText := sqlValue(v).(string); !isText {
		return &envpkg.Answer{Value: s, Match: "number"}
	}
	if plainNumber.MatchString(s) {
		// A number stored as text ("33000", "52"): "33,000" and "the 52nd
		// minute" say it (judged round 5). A leading zero makes a code
		// ("086"), matched as written below.
		return &envpkg.Answer{Value: s, Match: "number"}
	}
	if a := dateAnswer(s); a != nil {
		return a
	}
	if utf8.RuneCountInString(s) <= 4 && regexp.QuoteMeta(s) == s && !strings.ContainsAny(s, " \t") {
		// The pattern holds the word between non-word characters, so the
		// pattern's own text (the ground truth's answer) matches too.
		if strings.ToUpper(s) == s {
			// A code ("IN", "MCO", "BC") as written: "in" is a word.
			return &envpkg.Answer{Value: `(^|[^\pL\pN])` + s + `([^\pL\pN]|$)`, Match: "regex"}
		}
		return &envpkg.Answer{Value: `(?i)(^|[^\pL\pN])` + s + `([^\pL\pN]|$)`, Match: "regex"}
	}
	if a := foldAnswer(s); a != nil {
		return a
	}
	if snakeWord.MatchString(s) {
		// "basic_economy" said as "basic economy" (or "basic-economy").
		return &envpkg.Answer{Value: `(?i)` + s + `|` + strings.ReplaceAll(s, "_", `[_ -]`), Match: "regex"}
	}
	return &envpkg.Answer{Value: s, Match: "contains"}
}

// countAnswer is the rule for a count or total: a number, and no task for
// 0. A person answers "none" or "there are no lines", which a number rule
// rejects and the gates rightly try as a wrong answer; and a wrong hop
// (another row, a wrong filter) gives 0 as well, so a 0 shows nothing.
func countAnswer(total string) (*envpkg.Answer, error) {
	if n, err := strconv.ParseFloat(strings.TrimSpace(total), 64); err != nil || n == 0 {
		return nil, errDeadEnd
	}
	return &envpkg.Answer{Value: total, Match: "number"}, nil
}

// stated: the value v is already in what the user says (the row's
// description, the user's introduction of themselves): asking for it
// asks what the instruction states ("the first name of the actor CARY
// MCCONAUGHEY").
func stated(c *chain, e *entity, v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "" {
		return false
	}
	re, err := regexp.Compile(`(^|[^\pL\pN])` + regexp.QuoteMeta(v) + `([^\pL\pN]|$)`)
	if err != nil {
		return false
	}
	return re.MatchString(strings.ToLower(e.desc)) || re.MatchString(strings.ToLower(c.intro))
}

// otherValues are the values col has in the rows e could be taken for (its
// siblings), and the column's dominant value when one value fills most of
// the table: an answer equal to one of them does not show the agent found
// the right row.
func (w *walker) otherValues(e *entity, col *dbmodel.Column) []string {
	var out []string
	for _, o := range e.others {
		if v := o[col.Name]; v != nil {
			out = append(out, fmt.Sprint(sqlValue(v)))
		}
	}
	q, qc := dbmodel.Quote(e.table.Name), dbmodel.Quote(col.Name)
	stmt, _, err := w.src.Prepare(fmt.Sprintf(`SELECT %[1]s FROM %[2]s WHERE %[1]s IS NOT NULL GROUP BY %[1]s HAVING COUNT(*) * 2 > (SELECT COUNT(*) FROM %[2]s)`, qc, q))
	if err != nil {
		return out
	}
	defer stmt.Close()
	if stmt.Step() {
		out = append(out, fmt.Sprint(dbmodel.ColumnValue(stmt, 0)))
	}
	return out
}

// peers are up to n values of column col of t other than v (the column's
// other rows), in the database's order.
func (w *walker) peers(t *dbmodel.Table, col, v string, n int) []string {
	q := dbmodel.Quote(col)
	stmt, _, err := w.src.Prepare(fmt.Sprintf(`SELECT DISTINCT %[1]s FROM %[2]s WHERE %[1]s IS NOT NULL AND %[1]s <> ? LIMIT %[3]d`, q, dbmodel.Quote(t.Name), n))
	if err != nil {
		return nil
	}
	defer stmt.Close()
	if stmt.BindText(1, v) != nil {
		return nil
	}
	var out []string
	for stmt.Step() {
		out = append(out, fmt.Sprint(sqlValue(dbmodel.ColumnValue(stmt, 0))))
	}
	return out
}

// has is "does DESC have" or "do I have".
func has(e *entity) string {
	if e.person {
		return "do I have"
	}
	return "does " + e.desc + " have"
}

// hasPlain is "DESC has" or "I have".
func hasPlain(e *entity) string {
	if e.person {
		return "I have"
	}
	return e.desc + " has"
}

// lookupName: col, a "description", is what names the rows of t: its only
// text column (Northwind's RegionDescription, "Eastern"), or its label.
func lookupName(t *dbmodel.Table, col *dbmodel.Column) bool {
	if col.Name == t.Label {
		return true
	}
	texts := 0
	for _, c := range t.Columns {
		if c.Kind == dbmodel.Text && !t.IsKey(c.Name) {
			texts++ // (Territories: a text key, and its description is its name)
		}
	}
	return texts == 1 && col.Kind == dbmodel.Text
}

// valuesLike are col's allowed values, or for short text the values of
// col in t's rows that hold val ("Public Accountant" for "Accountant"):
// the answers a check must tell from val.
func (w *walker) valuesLike(t *dbmodel.Table, col *dbmodel.Column, val string) []string {
	if len(col.Enum) > 0 {
		return col.Enum
	}
	if col.Kind != dbmodel.Text || len(val) > 40 || len(val) < 2 {
		return nil
	}
	stmt, _, err := w.src.Prepare(fmt.Sprintf(`SELECT DISTINCT %[1]s FROM %[2]s WHERE %[1]s LIKE '%%' || ? || '%%' AND %[1]s <> ? LIMIT 20`, dbmodel.Quote(col.Name), dbmodel.Quote(t.Name)))
	if err != nil {
		return nil
	}
	defer stmt.Close()
	if stmt.BindText(1, val) != nil || stmt.BindText(2, val) != nil {
		return nil
	}
	out := []string{val}
	for stmt.Step() {
		out = append(out, stmt.ColumnText(0))
	}
	return out
}

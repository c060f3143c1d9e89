package runtime

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// The host writes a query's rows as JSON so that the guest does not decode
// and re-encode them (rowsjson.go); the text must be what the guest's own
// encoder writes from the values, whole result and row by row, for every
// kind of value SQLite returns.
func TestHostRenderedRowsMatchGuestEncoder(t *testing.T) { eachEngine(t, testHostRenderedRows) }

func testHostRenderedRows(t *testing.T, engine string) {
	e := loadEnvWith(t, "edge", engine)
	ep := newEpisode(t, e, "", 1)
	for _, sql := range []string{
		`SELECT 1 AS a, -9223372036854775808 AS b, 9223372036854775807 AS c, 0 AS d, -1 AS e`,
		`SELECT 0.1, 1e21, 1e20, 1e-7, 1e-6, -0.0, 5e-324, 1.7976931348623157e308, 123456789.125, -2.5e-9, 100.0`,
		`SELECT char(0,1,8,9,10,12,13,31,34,47,92,127) AS ctl, 'héllo €𝄞' AS uni, char(8232,8233) AS seps,
			'<&>' AS html, CAST(x'ff41c3' AS TEXT) AS bad, CAST(x'eda080' AS TEXT) AS surrogate, '' AS empty, NULL AS n`,
		`SELECT x'00ff7f' AS blob, x'' AS empty_blob, CAST('text' AS BLOB) AS text_blob`,
		`SELECT 1 AS "we""ird\", 2 AS "名前", 3 AS "a b", 4 AS "", 5 AS a, 6 AS a`,
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 40)
			SELECT x, x * 0.37 AS f, printf('r%d', x) AS s, CASE WHEN x % 3 = 0 THEN NULL ELSE x END AS maybe FROM c`,
		`SELECT 1 WHERE 0`,
		`SELECT k, n FROM big`,
	} {
		r := call(t, ep, "query_both", mustJSON(t, map[string]string{"sql": sql}))
		if r.IsError {
			t.Fatalf("%s: %s", sql, r.Content)
		}
		var got struct{ Host, Rows, Guest json.RawMessage }
		if err := json.Unmarshal([]byte(r.Content), &got); err != nil {
			t.Fatalf("%s: output is not JSON: %s", sql, r.Content)
		}
		if string(got.Host) != string(got.Guest) || string(got.Rows) != string(got.Guest) {
			t.Errorf("%s:\n host %s\n rows %s\nguest %s", sql, got.Host, got.Rows, got.Guest)
		}
	}
	// A value JSON cannot write fails the call the same way whether the
	// host or the guest would have written it.
	for _, tool := range []string{"query", "query_both"} {
		r := call(t, ep, tool, `{"sql":"SELECT 1e999 AS inf"}`)
		if !r.IsError || !strings.Contains(r.Content, "NaN or infinity") {
			t.Errorf("%s of an infinite float: %v %s", tool, r.IsError, r.Content)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Bundles built for ABI 1 ask with wire.OpQuery and read rows of typed
// values only; the host still answers them that way.
func TestABI1QueryStillAnswered(t *testing.T) {
	e := loadEnv(t, "edge")
	ep := newEpisode(t, e, "", 1)
	if err := ep.connect(); err != nil { // opened by an episode's first call
		t.Fatal(err)
	}
	req := wire.AppendString([]byte{wire.OpQuery}, `SELECT k, n, 'x' AS s, NULL AS z FROM big WHERE k = ?`)
	req = wire.AppendInt(wire.AppendUvarint(req, 1), 1)
	resp := ep.execGuestSQL(&toolCall{ep: ep}, nil, req)
	r := wire.NewReader(resp)
	if r.Byte() != wire.StatusOK {
		t.Fatalf("status: %q", resp)
	}
	var cols []string
	for n := r.Uvarint(); n > 0; n-- {
		cols = append(cols, r.String())
	}
	rows := r.Uvarint()
	var vals []any
	for range len(cols) {
		vals = append(vals, r.Value())
	}
	if r.Err() != nil || r.Len() != 0 || rows != 1 || !reflect.DeepEqual(cols, []string{"k", "n", "s", "z"}) ||
		!reflect.DeepEqual(vals, []any{int64(1), int64(1700000000000000000), "x", nil}) {
		t.Fatalf("rows %d cols %v vals %v err %v rest %d", rows, cols, vals, r.Err(), r.Len())
	}
}

// The accessors read the values the host sent (decoded lazily, text
// aliasing the response): every type through every accessor. The expected
// text is what the sdk before host-rendered rows (eager []any values)
// printed for the same query, byte for byte.
func TestRowAccessorsReadHostValues(t *testing.T) {
	e := loadEnv(t, "edge")
	ep := newEpisode(t, e, "", 1)
	r := call(t, ep, "read_each", `{"sql":"SELECT 42 AS i, -7 AS neg, 2.75 AS f, 'héllo' AS s, '' AS empty, NULL AS n, x'00ff41' AS b, '12' AS num_text UNION ALL SELECT 0, 1, -0.5, 'x', 'y', NULL, x'', '0'"}`)
	if r.IsError {
		t.Fatal(r.Content)
	}
	want := `[[` +
		`{"string":"42","int":42,"float":42,"bool":true,"is_null":false,"has":true,"value":42,"type":"int64"},` +
		`{"string":"-7","int":-7,"float":-7,"bool":true,"is_null":false,"has":true,"value":-7,"type":"int64"},` +
		`{"string":"2.75","int":2,"float":2.75,"bool":true,"is_null":false,"has":true,"value":2.75,"type":"float64"},` +
		`{"string":"héllo","int":0,"float":0,"bool":false,"is_null":false,"has":true,"value":"héllo","type":"string"},` +
		`{"string":"","int":0,"float":0,"bool":false,"is_null":false,"has":true,"value":"","type":"string"},` +
		`{"string":"","int":0,"float":0,"bool":false,"is_null":true,"has":true,"value":null,"type":"nil"},` +
		`{"string":"\u0000\ufffdA","int":0,"float":0,"bool":false,"is_null":false,"has":true,"value":"\u0000\ufffdA","type":"bytes"},` +
		`{"string":"12","int":0,"float":0,"bool":false,"is_null":false,"has":true,"value":"12","type":"string"}],[` +
		`{"string":"0","int":0,"float":0,"bool":false,"is_null":false,"has":true,"value":0,"type":"int64"},` +
		`{"string":"1","int":1,"float":1,"bool":true,"is_null":false,"has":true,"value":1,"type":"int64"},` +
		`{"string":"-0.5","int":0,"float":-0.5,"bool":false,"is_null":false,"has":true,"value":-0.5,"type":"float64"},` +
		`{"string":"x","int":0,"float":0,"bool":false,"is_null":false,"has":true,"value":"x","type":"string"},` +
		`{"string":"y","int":0,"float":0,"bool":false,"is_null":false,"has":true,"value":"y","type":"string"},` +
		`{"string":"","int":0,"float":0,"bool":false,"is_null":true,"has":true,"value":null,"type":"nil"},` +
		`{"string":"","int":0,"float":0,"bool":false,"is_null":false,"has":true,"value":"","type":"bytes"},` +
		`{"string":"0","int":0,"float":0,"bool":false,"is_null":false,"has":true,"value":"0","type":"string"}]]`
	if r.Content != want {
		t.Errorf("got  %s\nwant %s", r.Content, want)
	}
}

// A result over the response limit is an error, never a shorter result:
// the host stops rendering rows as soon as the limit is passed.
func TestLargeResultIsAnError(t *testing.T) {
	e := loadEnv(t, "edge")
	ep := newEpisode(t, e, "", 1)
	sql := `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000)
		SELECT x, printf('%.100c', 'a') AS t FROM c`
	r := call(t, ep, "query", mustJSON(t, map[string]string{"sql": sql}))
	if !r.IsError || !strings.Contains(r.Content, "too large") {
		t.Fatalf("want a 'too large' error; got is_error=%v %.200s", r.IsError, r.Content)
	}
	// The episode goes on.
	if r := call(t, ep, "query", `{"sql":"SELECT 1 AS one"}`); r.Content != `[{"one":1}]` {
		t.Fatalf("after the error: %+v", r)
	}
}

// sdk.QueryText (wire.OpQueryValues: the rows' values without their JSON)
// reads what QueryRow's Row.String reads, for every type, and tells an
// empty result from a NULL or empty text.
func TestQueryTextReadsWhatRowStringReads(t *testing.T) {
	e := loadEnv(t, "edge")
	ep := newEpisode(t, e, "", 1)
	for _, sql := range []string{
		`SELECT 'héllo' AS s, 2 AS other`,
		`SELECT 42`, `SELECT -2.5e-9`, `SELECT 100.0`, `SELECT NULL`, `SELECT ''`, `SELECT x'00ff41'`,
		`SELECT 1 WHERE 0`,
		`SELECT k, n FROM big ORDER BY k DESC`,
		`SELECT printf('%.*c', 70000, 'x')`, // larger than a response kept inline
	} {
		r := call(t, ep, "query_text", mustJSON(t, map[string]string{"sql": sql}))
		if r.IsError {
			t.Fatalf("%s: %s", sql, r.Content)
		}
		var got struct {
			Text     string `json:"text"`
			Found    bool   `json:"found"`
			RowText  string `json:"row_text"`
			RowFound bool   `json:"row_found"`
		}
		if err := json.Unmarshal([]byte(r.Content), &got); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if got.Text != got.RowText || got.Found != got.RowFound {
			t.Errorf("%s: QueryText %q %v, Row.String %q %v", sql, got.Text, got.Found, got.RowText, got.RowFound)
		}
	}
	r := call(t, ep, "query_text", `{"sql":"SELECT nosuch FROM big"}`)
	if !r.IsError || !strings.Contains(r.Content, "no such column") {
		t.Errorf("an error: %v %s", r.IsError, r.Content)
	}
}

package tools

import (
	"errors"
	"strconv"
	"strings"
	"unicode"

	"github.com/wasmenv/wasmenv/sdk"
	"github.com/wasmenv/wasmenv/sdk/py"
)

// Search direct flights between two cities on a specific date.
func SearchDirectFlight(args SearchDirectFlightArgs) (string, error) {
	rows, err := sdk.Query(`SELECT f.head AS head, d.data AS day FROM flights f
		JOIN flight_dates d ON d.flight = f.id AND d.date = ?
		WHERE f.origin = ? AND f.destination = ? AND d.status = 'available'
		ORDER BY f.rowid`, args.Date, args.Origin, args.Destination)
	if err != nil {
		return "", err
	}
	out := make([]byte, 0, 512*rows.Len()+2)
	out = append(out, '[')
	for i, r := range rows.All() {
		if i > 0 {
			out = append(out, ", "...)
		}
		if out, err = appendHit(out, r.String("head"), r.String("day"), ""); err != nil {
			return "", err
		}
	}
	return string(append(out, ']')), nil
}

type SearchDirectFlightArgs struct {
	// The origin city airport in three letters, such as 'JFK'.
	Origin string `json:"origin"`
	// The destination city airport in three letters, such as 'LAX'.
	Destination string `json:"destination"`
	// The date of the flight in the format 'YYYY-MM-DD', such as '2024-01-01'.
	Date string `json:"date"`
}

// Search direct flights between two cities on a specific date.
func SearchOnestopFlight(args SearchOnestopFlightArgs) (string, error) {
	// τ-bench's next-day date for a first leg arriving "+1":
	// f"2024-05-{int(date[-2:])+1}", whatever the year and month.
	nextDay, nextDayErr := "", error(nil)
	if n, err := pyInt2(lastRunes(args.Date, 2)); err != nil {
		nextDayErr = err
	} else {
		nextDay = "2024-05-" + strconv.FormatInt(n+1, 10)
	}
	// Pairs (A, B) in τ-bench's loop order: A over the flights from origin,
	// B over the flights from A's destination to destination, both in
	// collection order. A's and B's records for date, and B's for the next day.
	rows, err := sdk.Query(`SELECT a.head AS ahead, a.arrival AS arrival, b.head AS bhead, b.departure AS departure,
			ad.status AS astatus, ad.data AS aday, bd.status AS bstatus, bd.data AS bday, bn.status AS nstatus
		FROM flights a JOIN flights b ON b.origin = a.destination AND b.destination = ?
		LEFT JOIN flight_dates ad ON ad.flight = a.id AND ad.date = ?
		LEFT JOIN flight_dates bd ON bd.flight = b.id AND bd.date = ?
		LEFT JOIN flight_dates bn ON bn.flight = b.id AND bn.date = ?
		WHERE a.origin = ? ORDER BY a.rowid, b.rowid`,
		args.Destination, args.Date, args.Date, nextDay, args.Origin)
	if err != nil {
		return "", err
	}
	out := []byte{'['}
	for _, r := range rows.All() {
		arrival := r.String("arrival")
		date2, status2, has2 := args.Date, r.Value("bstatus"), !r.IsNull("bday")
		if strings.Contains(arrival, "+1") {
			if nextDayErr != nil {
				return "", nextDayErr
			}
			date2, status2, has2 = nextDay, r.Value("nstatus"), !r.IsNull("nstatus")
		}
		if arrival > r.String("departure") { // string comparison, as in Python
			continue
		}
		if r.IsNull("aday") || !has2 || r.Value("astatus") != "available" || status2 != "available" {
			continue
		}
		if r.IsNull("bday") { // B.dates[date], read even when date2 differs
			return "", py.KeyError(args.Date)
		}
		if len(out) > 1 {
			out = append(out, ", "...)
		}
		out = append(out, '[')
		if out, err = appendHit(out, r.String("ahead"), r.String("aday"), args.Date); err != nil {
			return "", err
		}
		out = append(out, ", "...)
		if out, err = appendHit(out, r.String("bhead"), r.String("bday"), date2); err != nil {
			return "", err
		}
		out = append(out, ']')
	}
	return string(append(out, ']')), nil
}

type SearchOnestopFlightArgs struct {
	// The origin city airport in three letters, such as 'JFK'.
	Origin string `json:"origin"`
	// The destination city airport in three letters, such as 'LAX'.
	Destination string `json:"destination"`
	// The date of the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.
	Date string `json:"date"`
}

// lastRunes is Python's s[-n:].
func lastRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}

// pyInt2 is Python's int(s) for the short strings date[-2:] gives:
// surrounding whitespace, an optional sign, then decimal digits (any
// script's, as Python accepts), with its ValueError text.
func pyInt2(s string) (int64, error) {
	bad := errors.New("invalid literal for int() with base 10: " + py.StrRepr(s))
	t := strings.TrimFunc(s, unicode.IsSpace)
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	if t == "" {
		return 0, bad
	}
	var n int64
	for _, r := range t {
		if !unicode.IsDigit(r) {
			return 0, bad
		}
		n = n*10 + digitValue(r)
	}
	if neg {
		n = -n
	}
	return n, nil
}

// digitValue is the value of a Unicode decimal digit: digits come in
// contiguous runs starting at a zero.
func digitValue(r rune) int64 {
	if r >= '0' && r <= '9' {
		return int64(r - '0')
	}
	base := r
	for unicode.IsDigit(base - 1) {
		base--
	}
	return int64(r-base) % 10
}

package tools

import (
	"errors"
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// loanDays is a loan's length and a renewal's extension.
const loanDays = 21

// maxLoans is how many loans a patron may hold at once.
const maxLoans = 5

// BorrowBookArgs are the arguments of borrow_book.
type BorrowBookArgs struct {
	// The verified patron's id.
	PatronID string `json:"patron_id"`
	// The book's id from search_books.
	BookID string `json:"book_id"`
}

// BorrowBook lends an available copy for 21 days.
func BorrowBook(args BorrowBookArgs) (sdk.Row, error) {
	if err := patronExists(args.PatronID); err != nil {
		return sdk.Row{}, err
	}
	held, err := sdk.QueryRow(`SELECT count(*) AS n FROM loans WHERE patron_id = ? AND returned_at IS NULL`, args.PatronID)
	if err != nil {
		return sdk.Row{}, err
	}
	if held.Int("n") >= maxLoans {
		return sdk.Row{}, fmt.Errorf("the patron already holds %d loans, the most allowed", maxLoans)
	}
	copy, err := sdk.QueryRow(`SELECT id FROM copies WHERE book_id = ? AND status = 'available' ORDER BY id LIMIT 1`, args.BookID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, errors.New("no copy of that book is available: it can be reserved instead")
	} else if err != nil {
		return sdk.Row{}, err
	}
	now := sdk.Now()
	due := now.AddDate(0, 0, loanDays).Format("2006-01-02")
	res, err := sdk.Exec(`INSERT INTO loans (copy_id, patron_id, borrowed_at, due_date, renewed, returned_at) VALUES (?, ?, ?, ?, 0, NULL)`,
		copy.String("id"), args.PatronID, now.Format(time.RFC3339), due)
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE copies SET status = 'on_loan' WHERE id = ?`, copy.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return loanView(res.LastInsertID)
}

func loanView(id int64) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT l.id AS loan_id, b.title, b.author, l.borrowed_at, l.due_date, l.renewed = 1 AS renewed
		FROM loans l JOIN copies c ON c.id = l.copy_id JOIN books b ON b.id = c.book_id WHERE l.id = ?`, id)
}

// RenewLoanArgs are the arguments of renew_loan.
type RenewLoanArgs struct {
	// The verified patron's id.
	PatronID string `json:"patron_id"`
	// The loan's id from list_loans.
	LoanID int64 `json:"loan_id"`
}

// RenewLoan renews a loan once by 21 days when nobody waits for the book.
func RenewLoan(args RenewLoanArgs) (sdk.Row, error) {
	l, err := sdk.QueryRow(`SELECT l.id, l.due_date, l.renewed, c.book_id FROM loans l JOIN copies c ON c.id = l.copy_id
		WHERE l.id = ? AND l.patron_id = ? AND l.returned_at IS NULL`, args.LoanID, args.PatronID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the patron has no current loan %d", args.LoanID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if l.Int("renewed") == 1 {
		return sdk.Row{}, errors.New("the loan was already renewed once")
	}
	if _, err := sdk.QueryRow(`SELECT id FROM reservations WHERE book_id = ? AND status = 'waiting'`, l.String("book_id")); err == nil {
		return sdk.Row{}, errors.New("someone is waiting for this book, so the loan cannot be renewed")
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	due, err := time.Parse("2006-01-02", l.String("due_date"))
	if err != nil {
		return sdk.Row{}, fmt.Errorf("loan %d has an unreadable due date", args.LoanID)
	}
	if _, err := sdk.Exec(`UPDATE loans SET due_date = ?, renewed = 1 WHERE id = ?`, due.AddDate(0, 0, loanDays).Format("2006-01-02"), args.LoanID); err != nil {
		return sdk.Row{}, err
	}
	return loanView(args.LoanID)
}

// ReserveBookArgs are the arguments of reserve_book.
type ReserveBookArgs struct {
	// The verified patron's id.
	PatronID string `json:"patron_id"`
	// The book's id from search_books.
	BookID string `json:"book_id"`
}

// ReserveBook reserves a book none of whose copies is available.
func ReserveBook(args ReserveBookArgs) (sdk.Row, error) {
	if err := patronExists(args.PatronID); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.QueryRow(`SELECT id FROM books WHERE id = ?`, args.BookID); err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no book has the id %s", args.BookID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.QueryRow(`SELECT id FROM copies WHERE book_id = ? AND status = 'available' LIMIT 1`, args.BookID); err == nil {
		return sdk.Row{}, errors.New("a copy is available: borrow it instead")
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	if _, err := sdk.QueryRow(`SELECT id FROM reservations WHERE book_id = ? AND patron_id = ? AND status = 'waiting'`, args.BookID, args.PatronID); err == nil {
		return sdk.Row{}, errors.New("the patron already reserved this book")
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	res, err := sdk.Exec(`INSERT INTO reservations (book_id, patron_id, status, reserved_at) VALUES (?, ?, 'waiting', ?)`, args.BookID, args.PatronID, sdk.Now().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT r.id AS reservation_id, b.title, b.author, r.status, r.reserved_at FROM reservations r JOIN books b ON b.id = r.book_id WHERE r.id = ?`, res.LastInsertID)
}

// PayFinesArgs are the arguments of pay_fines.
type PayFinesArgs struct {
	// The verified patron's id.
	PatronID string `json:"patron_id"`
}

// PayFines pays all of the patron's unpaid fines.
func PayFines(args PayFinesArgs) (map[string]any, error) {
	if err := patronExists(args.PatronID); err != nil {
		return nil, err
	}
	owed, err := sdk.QueryRow(`SELECT count(*) AS n, round(coalesce(sum(amount), 0), 2) AS amount FROM fines WHERE patron_id = ? AND paid_at IS NULL`, args.PatronID)
	if err != nil {
		return nil, err
	}
	if owed.Int("n") == 0 {
		return nil, errors.New("the patron has no unpaid fine")
	}
	if _, err := sdk.Exec(`UPDATE fines SET paid_at = ? WHERE patron_id = ? AND paid_at IS NULL`, sdk.Now().Format(time.RFC3339), args.PatronID); err != nil {
		return nil, err
	}
	return map[string]any{"fines_paid": owed.Int("n"), "amount": owed.Float("amount")}, nil
}

package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyPatronArgs are the arguments of verify_patron.
type VerifyPatronArgs struct {
	// The patron's full name.
	Name string `json:"name"`
	// The patron's email.
	Email string `json:"email"`
}

// VerifyPatron verifies a card holder by full name and email.
func VerifyPatron(args VerifyPatronArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, card_number FROM patrons WHERE lower(name) = lower(?) AND lower(email) = lower(?)`,
		strings.TrimSpace(args.Name), strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, errors.New("no patron matches that name and email")
	}
	return row, err
}

func patronExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM patrons WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no patron has the id %s", id)
	}
	return err
}

// SearchBooksArgs are the arguments of search_books.
type SearchBooksArgs struct {
	// Part of a title or an author's name.
	Query string `json:"query"`
}

// SearchBooks lists books by title or author with copies available and on loan.
func SearchBooks(args SearchBooksArgs) (sdk.Rows, error) {
	q := "%" + strings.ToLower(strings.TrimSpace(args.Query)) + "%"
	return sdk.Query(`SELECT b.id AS book_id, b.title, b.author,
			(SELECT count(*) FROM copies c WHERE c.book_id = b.id AND c.status = 'available') AS available,
			(SELECT count(*) FROM copies c WHERE c.book_id = b.id AND c.status = 'on_loan') AS on_loan
		FROM books b WHERE lower(b.title) LIKE ? OR lower(b.author) LIKE ? ORDER BY b.title, b.author`, q, q)
}

// ListLoansArgs are the arguments of list_loans.
type ListLoansArgs struct {
	// The verified patron's id.
	PatronID string `json:"patron_id"`
}

// ListLoans lists the patron's current loans.
func ListLoans(args ListLoansArgs) (sdk.Rows, error) {
	if err := patronExists(args.PatronID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT l.id AS loan_id, b.title, b.author, l.borrowed_at, l.due_date, l.renewed = 1 AS renewed
		FROM loans l JOIN copies c ON c.id = l.copy_id JOIN books b ON b.id = c.book_id
		WHERE l.patron_id = ? AND l.returned_at IS NULL ORDER BY l.due_date`, args.PatronID)
}

// ListFinesArgs are the arguments of list_fines.
type ListFinesArgs struct {
	// The verified patron's id.
	PatronID string `json:"patron_id"`
}

// ListFines lists the patron's fines and the total unpaid.
func ListFines(args ListFinesArgs) (map[string]any, error) {
	if err := patronExists(args.PatronID); err != nil {
		return nil, err
	}
	fines, err := sdk.Query(`SELECT id AS fine_id, amount, reason, paid_at IS NOT NULL AS paid FROM fines WHERE patron_id = ? ORDER BY id`, args.PatronID)
	if err != nil {
		return nil, err
	}
	total, err := sdk.QueryRow(`SELECT round(coalesce(sum(amount), 0), 2) AS unpaid FROM fines WHERE patron_id = ? AND paid_at IS NULL`, args.PatronID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"fines": fines, "unpaid_total": total.Float("unpaid")}, nil
}

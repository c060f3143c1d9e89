"""The catalogue and lending."""

import datetime

from wasmenv import ToolError, execute, insert, now, query, query_one

LOAN_DAYS = 14
MAX_LOANS = 3


def _stamp(t: datetime.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def search_books(text: str) -> list[dict]:
    """Searches the catalogue by title or author (case-insensitive).

    Args:
        text: Part of a title or an author's name.
    """
    like = "%" + text.strip().lower() + "%"
    return query("SELECT book_id, title, author, copies FROM books "
                 "WHERE lower(title) LIKE ? OR lower(author) LIKE ? ORDER BY book_id", like, like)


def borrow_book(member_id: str, book_id: str) -> dict:
    """Lends a book to a member for 14 days.

    Args:
        member_id: The member's id, such as 'm1'.
        book_id: The book's id, such as 'b1'.
    """
    if query_one("SELECT 1 AS ok FROM members WHERE member_id = ?", member_id) is None:
        raise ToolError(f"no member {member_id}")
    book = query_one("SELECT title, copies FROM books WHERE book_id = ?", book_id)
    if book is None:
        raise ToolError(f"no book {book_id}")
    if book["copies"] < 1:
        raise ToolError(f"no copy of {book['title']!r} is available")
    held = query_one("SELECT COUNT(*) AS n FROM loans WHERE member_id = ? AND returned_at IS NULL", member_id)["n"]
    if held >= MAX_LOANS:
        raise ToolError(f"member {member_id} already holds {held} books (at most {MAX_LOANS})")
    t = now()
    due = _stamp(t + datetime.timedelta(days=LOAN_DAYS))
    execute("UPDATE books SET copies = copies - 1 WHERE book_id = ?", book_id)
    loan_id = insert("INSERT INTO loans (member_id, book_id, borrowed_at, due) VALUES (?, ?, ?, ?)",
                     member_id, book_id, _stamp(t), due)
    return {"loan_id": loan_id, "book_id": book_id, "title": book["title"], "due": due}


def return_book(loan_id: int) -> str:
    """Records the return of a loaned book.

    Args:
        loan_id: The loan's number, as list_loans shows it.
    """
    loan = query_one("SELECT book_id, due, returned_at FROM loans WHERE loan_id = ?", loan_id)
    if loan is None:
        raise ToolError(f"no loan {loan_id}")
    if loan["returned_at"] is not None:
        raise ToolError(f"loan {loan_id} was already returned")
    stamp = _stamp(now())
    execute("UPDATE loans SET returned_at = ? WHERE loan_id = ?", stamp, loan_id)
    execute("UPDATE books SET copies = copies + 1 WHERE book_id = ?", loan["book_id"])
    late = " (late)" if stamp > loan["due"] else ""
    return f"Loan {loan_id} returned{late}."

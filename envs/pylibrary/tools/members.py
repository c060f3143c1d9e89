"""Looking up library members."""

from wasmenv import ToolError, query, query_one


def find_member(email: str) -> dict:
    """Finds a member by email address.

    Args:
        email: The member's email address, such as 'ada@example.org'.
    """
    member = query_one("SELECT member_id, name, email FROM members WHERE email = ?", email.strip().lower())
    if member is None:
        raise ToolError(f"no member with email {email}")
    return member


def list_loans(member_id: str, include_returned: bool = False) -> list[dict]:
    """Lists a member's loans, the oldest first.

    Args:
        member_id: The member's id, such as 'm1'.
        include_returned: Whether to list returned loans too.
    """
    sql = ("SELECT l.loan_id, l.book_id, b.title, l.borrowed_at, l.due, l.returned_at "
           "FROM loans l JOIN books b USING (book_id) WHERE l.member_id = ?")
    if not include_returned:
        sql += " AND l.returned_at IS NULL"
    return query(sql + " ORDER BY l.loan_id", member_id)

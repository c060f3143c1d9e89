package tools

import (
	"errors"

	"github.com/wasmenv/wasmenv/sdk"
	"github.com/wasmenv/wasmenv/sdk/py"
)

// Calculate the result of a mathematical expression.
func Calculate(args CalculateArgs) (string, error) {
	out, err := py.Calculate(args.Expression)
	var zeroDiv *py.DivisionByZeroError
	if errors.As(err, &zeroDiv) {
		return "", errors.New("division by zero") // retail's TOOLS.md: one text for every division
	}
	return out, err
}

type CalculateArgs struct {
	// The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.
	Expression string `json:"expression"`
}

// Find user id by email. If the user is not found, the function will return an error message.
func FindUserIDByEmail(args FindUserIDByEmailArgs) (string, error) {
	// The candidates: the users whose ASCII email lowers to the argument
	// lowered (email_key, indexed), and the few whose email SQLite cannot
	// lower as Python does (email_key NULL). Python's comparison decides, in
	// file order.
	want := py.Lower(args.Email)
	rows, err := sdk.Query(`SELECT id, data ->> '$.email' AS email FROM users
		WHERE email_key = ? OR email_key IS NULL ORDER BY rowid`, want)
	if err != nil {
		return "", err
	}
	for _, r := range rows.All() {
		if email, ok := r.Value("email").(string); ok && py.Lower(email) == want {
			return r.String("id"), nil
		}
	}
	return "", errors.New("user not found")
}

type FindUserIDByEmailArgs struct {
	// The email of the user, such as 'something@example.com'.
	Email string `json:"email"`
}

// Find user id by first name, last name, and zip code. If the user is not found, the function will return an error message. By default, find user id by email, and only call this function if the user is not found by email or cannot remember email.
func FindUserIDByNameZip(args FindUserIDByNameZipArgs) (string, error) {
	// The zip is compared exactly (zip, indexed): only the users living
	// there are read, and the names are compared as Python lowers them.
	rows, err := sdk.Query(`SELECT id, data ->> '$.name.first_name' AS first,
		data ->> '$.name.last_name' AS last FROM users WHERE zip = ? ORDER BY rowid`, args.Zip)
	if err != nil {
		return "", err
	}
	first, last := py.Lower(args.FirstName), py.Lower(args.LastName)
	for _, r := range rows.All() {
		f, fok := r.Value("first").(string)
		l, lok := r.Value("last").(string)
		if fok && lok && py.Lower(f) == first && py.Lower(l) == last {
			return r.String("id"), nil
		}
	}
	return "", errors.New("user not found")
}

type FindUserIDByNameZipArgs struct {
	// The first name of the customer, such as 'John'.
	FirstName string `json:"first_name"`
	// The last name of the customer, such as 'Doe'.
	LastName string `json:"last_name"`
	// The zip code of the customer, such as '12345'.
	Zip string `json:"zip"`
}

// Get the status and details of an order.
func GetOrderDetails(args GetOrderDetailsArgs) (string, error) {
	return details("orders", args.OrderID, "order not found")
}

type GetOrderDetailsArgs struct {
	// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
	OrderID string `json:"order_id"`
}

// Get the inventory details of a product.
func GetProductDetails(args GetProductDetailsArgs) (string, error) {
	return details("products", args.ProductID, "product not found")
}

type GetProductDetailsArgs struct {
	// The product id, such as '6086499569'. Be careful the product id is different from the item id.
	ProductID string `json:"product_id"`
}

// Get the details of a user, including their orders.
func GetUserDetails(args GetUserDetailsArgs) (string, error) {
	return details("users", args.UserID, "user not found")
}

type GetUserDetailsArgs struct {
	// The user id, such as 'sara_doe_496'.
	UserID string `json:"user_id"`
}

// details returns json.dumps of a record: its stored text.
func details(table, id, notFound string) (string, error) {
	text, err := py.RecordText(table, id)
	if err != nil {
		return "", err
	}
	if text == "" {
		return "", errors.New(notFound)
	}
	return text, nil
}

// List the name and product id of all product types. Each product type has a variety of different items with unique item ids and options. There are only 50 product types in the store.
func ListAllProductTypes() (string, error) {
	// {product["name"]: product["product_id"] for product in products.values()},
	// sorted by name: among products of one name the last in file order gives
	// the id. SQLite renders it whenever products change (product_list), as
	// json.dumps would write it; where it cannot guarantee that (out is
	// NULL), the guest builds it.
	row, err := sdk.QueryRow(`SELECT out FROM product_list`)
	if err != nil && err != sdk.ErrNoRows {
		return "", err
	}
	if out, ok := row.Value("out").(string); ok {
		return out, nil
	}
	return listProductTypes()
}

// listProductTypes is ListAllProductTypes in the guest, for names and ids
// that SQLite would not write as json.dumps does.
func listProductTypes() (string, error) {
	rows, err := sdk.Query(`SELECT product_rowid AS r, name, product_id AS pid
		FROM product_names ORDER BY name, product_rowid`)
	if err != nil {
		return "", err
	}
	all := rows.All()
	// Python fails on the first product in file order that lacks a str name
	// (KeyError, as this port words it) or an id.
	var bad error
	badRow := int64(-1)
	for _, r := range all {
		var err error
		if _, ok := r.Value("name").(string); !ok {
			err = py.KeyError("name")
		} else if _, ok := r.Value("pid").(string); !ok {
			err = py.KeyError("product_id")
		}
		if err != nil && (badRow < 0 || r.Int("r") < badRow) {
			bad, badRow = err, r.Int("r")
		}
	}
	if bad != nil {
		return "", bad
	}
	b := make([]byte, 0, 48*len(all))
	b = append(b, '{')
	for i, r := range all {
		name := r.String("name")
		if i+1 < len(all) && all[i+1].String("name") == name {
			continue // a later product of the same name
		}
		if len(b) > 1 {
			b = append(b, ", "...)
		}
		b = py.AppendString(b, name)
		b = append(b, ": "...)
		b = appendJSONAsDumps(b, r.String("pid"))
	}
	return string(append(b, '}')), nil
}

// appendJSONAsDumps appends a JSON text (SQLite's rendering of a member) as
// json.dumps would write its value: a string or an integer as it is when
// json.dumps would write the same bytes, anything else parsed and encoded.
func appendJSONAsDumps(b []byte, text string) []byte {
	if plainJSON(text) {
		return append(b, text...)
	}
	v, err := py.Parse(text)
	if err != nil {
		return append(b, text...)
	}
	return v.AppendTo(b)
}

// plainJSON reports whether text is a string of printable ASCII without
// escapes, or a non-negative integer: JSON that json.dumps writes byte for byte alike.
func plainJSON(text string) bool {
	if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
		for i := 1; i < len(text)-1; i++ {
			if c := text[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < '0' || c > '9' {
			return false
		}
	}
	return len(text) > 0
}

// Use the tool to think about something. It will not obtain new information or change the database, but just append the thought to the log. Use it when complex reasoning is needed.
func Think(args ThinkArgs) (string, error) {
	return "", nil
}

type ThinkArgs struct {
	// A thought to think about.
	Thought string `json:"thought"`
}

// Transfer the user to a human agent, with a summary of the user's issue. Only transfer if the user explicitly asks for a human agent, or if the user's issue cannot be resolved by the agent with the available tools.
func TransferToHumanAgents(args TransferToHumanAgentsArgs) (string, error) {
	return "Transfer successful", nil
}

type TransferToHumanAgentsArgs struct {
	// A summary of the user's issue.
	Summary string `json:"summary"`
}

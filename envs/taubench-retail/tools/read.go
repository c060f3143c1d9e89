package tools

import (
	"errors"
	"sort"

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
	rows, err := sdk.Query(`SELECT id, json_extract(data, '$.email') AS email FROM users ORDER BY rowid`)
	if err != nil {
		return "", err
	}
	want := py.Lower(args.Email)
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
	rows, err := sdk.Query(`SELECT id, json_extract(data, '$.name.first_name') AS first,
		json_extract(data, '$.name.last_name') AS last, json_extract(data, '$.address.zip') AS zip
		FROM users ORDER BY rowid`)
	if err != nil {
		return "", err
	}
	first, last := py.Lower(args.FirstName), py.Lower(args.LastName)
	for _, r := range rows.All() {
		f, _ := r.Value("first").(string)
		l, _ := r.Value("last").(string)
		z, zok := r.Value("zip").(string)
		if py.Lower(f) == first && py.Lower(l) == last && zok && z == args.Zip {
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

// details returns json.dumps of a record.
func details(table, id, notFound string) (string, error) {
	v, err := load(table, id)
	if err != nil {
		return "", err
	}
	if v == nil {
		return "", errors.New(notFound)
	}
	return v.Encode(), nil
}

// List the name and product id of all product types. Each product type has a variety of different items with unique item ids and options. There are only 50 product types in the store.
func ListAllProductTypes() (string, error) {
	rows, err := sdk.Query(`SELECT data FROM products ORDER BY rowid`)
	if err != nil {
		return "", err
	}
	// {product["name"]: product["product_id"] for product in products.values()}, sorted by name
	ids := map[string]*py.Value{}
	var names []string
	for _, r := range rows.All() {
		p, err := py.Parse(r.String("data"))
		if err != nil {
			return "", err
		}
		name := p.Get("name")
		if !name.IsString() {
			return "", py.KeyError("name")
		}
		if _, seen := ids[name.Text()]; !seen {
			names = append(names, name.Text())
		}
		pid := p.Get("product_id")
		if pid == nil {
			return "", py.KeyError("product_id")
		}
		ids[name.Text()] = pid
	}
	sort.Strings(names)
	out := py.Object()
	for _, n := range names {
		out.Set(n, ids[n])
	}
	return out.Encode(), nil
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

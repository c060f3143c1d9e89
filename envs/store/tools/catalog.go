package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// SearchProducts searches the catalog by keyword and/or category and returns
// matching products with their price range and how many variants are in stock.
func SearchProducts(args SearchProductsArgs) (sdk.Rows, error) {
	q := "%" + strings.ToLower(strings.TrimSpace(args.Query)) + "%"
	return sdk.Query(`SELECT p.product_id, p.name, p.category, p.final_sale,
		MIN(v.price_cents) AS min_price_cents, MAX(v.price_cents) AS max_price_cents,
		SUM(v.active = 1 AND v.stock > 0) AS variants_in_stock
		FROM products p JOIN variants v USING (product_id)
		WHERE (lower(p.name) LIKE ? OR lower(p.description) LIKE ?)
		AND (? = '' OR p.category = ?)
		GROUP BY p.product_id ORDER BY p.product_id`, q, q, args.Category, args.Category)
}

type SearchProductsArgs struct {
	// Words to look for in product names and descriptions, such as "headphones"; omit to list everything.
	Query string `json:"query,omitempty"`
	// Only products of this category.
	Category string `json:"category,omitempty" enum:"apparel,electronics,fitness,footwear,home,kitchen,outdoors"`
}

// GetProduct returns a product with all its variants (color, size, price,
// stock, whether it is still sold).
func GetProduct(args GetProductArgs) (map[string]any, error) {
	p, err := sdk.QueryRow(`SELECT * FROM products WHERE product_id = ?`, strings.ToUpper(strings.TrimSpace(args.ProductID)))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("product %s not found", args.ProductID)
	} else if err != nil {
		return nil, err
	}
	vs, err := sdk.Query(`SELECT variant_id, sku, color, size, price_cents, stock, active
		FROM variants WHERE product_id = ? ORDER BY variant_id`, p.String("product_id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"product": p, "variants": vs}, nil
}

type GetProductArgs struct {
	// The product id, such as "P101".
	ProductID string `json:"product_id"`
}

// GetGiftCard returns a gift card's balance, owner, status and expiry date.
func GetGiftCard(args GetGiftCardArgs) (sdk.Row, error) {
	code := strings.ToUpper(strings.TrimSpace(args.Code))
	row, err := sdk.QueryRow(`SELECT code, customer_id, balance_cents, status, expires_at,
		expires_at < ? AS expired FROM gift_cards WHERE code = ?`, today(), code)
	if err == sdk.ErrNoRows {
		return row, fmt.Errorf("gift card %s not found", args.Code)
	}
	return row, err
}

type GetGiftCardArgs struct {
	// The gift card code, such as "GC-8KQ2-5531".
	Code string `json:"code"`
}

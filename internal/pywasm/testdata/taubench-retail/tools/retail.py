"""τ-bench's retail tools in Python, written from
/work/shared/taubench-retail/TOOLS.md in τ-bench's style: functions over a
dict of collections (wasmenv.data), each returning a string, errors returned
as "Error: ..." strings."""

import json

from wasmenv import data


def _counts_ok(order: dict, item_ids: list) -> str:
    all_item_ids = [item["item_id"] for item in order["items"]]
    for item_id in item_ids:
        if item_ids.count(item_id) > all_item_ids.count(item_id):
            return item_id
    return ""


def _address(address1, address2, city, state, country, zip):
    return {"address1": address1, "address2": address2, "city": city, "state": state, "country": country, "zip": zip}


def calculate(expression: str) -> str:
    """Calculate the result of a mathematical expression.

    Args:
        expression: The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.
    """
    if not all(c in "0123456789+-*/(). " for c in expression):
        return "Error: invalid characters in expression"
    try:
        value = _Calc(expression).run()
        return str(round(float(value), 2))
    except Exception as e:
        return f"Error: {e}"


class _Calc:
    """Python's arithmetic on + - * / // ** and parentheses (no eval)."""

    def __init__(self, text):
        self.toks = []
        i = 0
        while i < len(text):
            c = text[i]
            if c == " ":
                i += 1
            elif c.isdigit() or c == ".":
                j = i
                while j < len(text) and (text[j].isdigit() or text[j] == "."):
                    j += 1
                num = text[i:j]
                if num.count(".") > 1 or num == ".":
                    raise SyntaxError("invalid syntax (<string>, line 1)")
                self.toks.append(float(num) if "." in num else int(num))
                i = j
            elif text.startswith("**", i) or text.startswith("//", i):
                self.toks.append(text[i:i + 2])
                i += 2
            else:
                self.toks.append(c)
                i += 1
        self.pos = 0

    def run(self):
        if not self.toks:
            raise SyntaxError("invalid syntax (<string>, line 1)")
        v = self.expr()
        if self.pos != len(self.toks):
            raise SyntaxError("invalid syntax (<string>, line 1)")
        return v

    def peek(self):
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def take(self):
        t = self.peek()
        self.pos += 1
        return t

    def expr(self):
        v = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            w = self.term()
            v = v + w if op == "+" else v - w
        return v

    def term(self):
        v = self.unary()
        while self.peek() in ("*", "/", "//"):
            op = self.take()
            w = self.unary()
            v = v * w if op == "*" else (v / w if op == "/" else v // w)
        return v

    def unary(self):
        if self.peek() in ("+", "-"):
            op = self.take()
            v = self.unary()
            return +v if op == "+" else -v
        return self.power()

    def power(self):
        v = self.atom()
        if self.peek() == "**":
            self.take()
            v = v ** self.unary()
        return v

    def atom(self):
        t = self.take()
        if t == "(":
            v = self.expr()
            if self.take() != ")":
                raise SyntaxError("'(' was never closed (<string>, line 1)")
            return v
        if isinstance(t, (int, float)) and not isinstance(t, bool):
            return t
        raise SyntaxError("invalid syntax (<string>, line 1)")


def cancel_pending_order(order_id: str, reason: str) -> str:
    """Cancel a pending order. If the order is already processed or delivered, it cannot be cancelled. The agent needs to explain the cancellation detail and ask for explicit user confirmation (yes/no) to proceed. If the user confirms, the order status will be changed to 'cancelled' and the payment will be refunded. The refund will be added to the user's gift card balance immediately if the payment was made using a gift card, otherwise the refund would take 5-7 business days to process. The function returns the order details after the cancellation.

    Args:
        order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        reason: The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'.
    """
    orders, users = data["orders"], data["users"]
    if order_id not in orders:
        return "Error: order not found"
    order = orders[order_id]
    if order["status"] != "pending":
        return "Error: non-pending order cannot be cancelled"
    if reason not in ["no longer needed", "ordered by mistake"]:
        return "Error: invalid reason"
    refunds = []
    for payment in order["payment_history"]:
        payment_id = payment["payment_method_id"]
        refunds.append({"transaction_type": "refund", "amount": payment["amount"], "payment_method_id": payment_id})
        if "gift_card" in payment_id:
            method = users[order["user_id"]]["payment_methods"][payment_id]
            method["balance"] += payment["amount"]
            method["balance"] = round(method["balance"], 2)
    order["status"] = "cancelled"
    order["cancel_reason"] = reason
    order["payment_history"].extend(refunds)
    return json.dumps(order)


def exchange_delivered_order_items(order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str) -> str:
    """Exchange items in a delivered order to new items of the same product type. For a delivered order, return or exchange can be only done once by the agent. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.

    Args:
        order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        item_ids: The item ids to be exchanged, each such as '1008292230'. There could be duplicate items in the list.
        new_item_ids: The item ids to be exchanged for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.
        payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
    """
    orders, users, products = data["orders"], data["users"], data["products"]
    if order_id not in orders:
        return "Error: order not found"
    order = orders[order_id]
    if order["status"] != "delivered":
        return "Error: non-delivered order cannot be exchanged"
    missing = _counts_ok(order, item_ids)
    if missing:
        return f"Error: {missing} not found"
    if len(item_ids) != len(new_item_ids):
        return "Error: the number of items to be exchanged should match"
    diff_price = 0
    for item_id, new_item_id in zip(item_ids, new_item_ids):
        item = [item for item in order["items"] if item["item_id"] == item_id][0]
        variants = products[item["product_id"]]["variants"]
        if not (new_item_id in variants and variants[new_item_id]["available"]):
            return f"Error: new item {new_item_id} not found or available"
        diff_price += variants[new_item_id]["price"] - item["price"]
    diff_price = round(diff_price, 2)
    methods = users[order["user_id"]]["payment_methods"]
    if payment_method_id not in methods:
        return "Error: payment method not found"
    method = methods[payment_method_id]
    if method["source"] == "gift_card" and method["balance"] < diff_price:
        return "Error: insufficient gift card balance to pay for the price difference"
    order["status"] = "exchange requested"
    order["exchange_items"] = sorted(item_ids)
    order["exchange_new_items"] = sorted(new_item_ids)
    order["exchange_payment_method_id"] = payment_method_id
    order["exchange_price_difference"] = diff_price
    return json.dumps(order)


def find_user_id_by_email(email: str) -> str:
    """Find user id by email. If the user is not found, the function will return an error message.

    Args:
        email: The email of the user, such as 'something@example.com'.
    """
    for user_id, profile in data["users"].items():
        if profile["email"].lower() == email.lower():
            return user_id
    return "Error: user not found"


def find_user_id_by_name_zip(first_name: str, last_name: str, zip: str) -> str:
    """Find user id by first name, last name, and zip code. If the user is not found, the function will return an error message. By default, find user id by email, and only call this function if the user is not found by email or cannot remember email.

    Args:
        first_name: The first name of the customer, such as 'John'.
        last_name: The last name of the customer, such as 'Doe'.
        zip: The zip code of the customer, such as '12345'.
    """
    for user_id, profile in data["users"].items():
        if (profile["name"]["first_name"].lower() == first_name.lower()
                and profile["name"]["last_name"].lower() == last_name.lower()
                and profile["address"]["zip"] == zip):
            return user_id
    return "Error: user not found"


def get_order_details(order_id: str) -> str:
    """Get the status and details of an order.

    Args:
        order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
    """
    order = data["orders"].get(order_id)
    return json.dumps(order) if order is not None else "Error: order not found"


def get_product_details(product_id: str) -> str:
    """Get the inventory details of a product.

    Args:
        product_id: The product id, such as '6086499569'. Be careful the product id is different from the item id.
    """
    product = data["products"].get(product_id)
    return json.dumps(product) if product is not None else "Error: product not found"


def get_user_details(user_id: str) -> str:
    """Get the details of a user, including their orders.

    Args:
        user_id: The user id, such as 'sara_doe_496'.
    """
    user = data["users"].get(user_id)
    return json.dumps(user) if user is not None else "Error: user not found"


def list_all_product_types() -> str:
    """List the name and product id of all product types. Each product type has a variety of different items with unique item ids and options. There are only 50 product types in the store."""
    product_dict = {p["name"]: p["product_id"] for p in data["products"].values()}
    return json.dumps(dict(sorted(product_dict.items())))


def modify_pending_order_address(order_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str) -> str:
    """Modify the shipping address of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.

    Args:
        order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        address1: The first line of the address, such as '123 Main St'.
        address2: The second line of the address, such as 'Apt 1' or ''.
        city: The city, such as 'San Francisco'.
        state: The state, such as 'CA'.
        country: The country, such as 'USA'.
        zip: The zip code, such as '12345'.
    """
    orders = data["orders"]
    if order_id not in orders:
        return "Error: order not found"
    order = orders[order_id]
    if order["status"] != "pending":
        return "Error: non-pending order cannot be modified"
    order["address"] = _address(address1, address2, city, state, country, zip)
    return json.dumps(order)


def modify_pending_order_items(order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str) -> str:
    """Modify items in a pending order to new items of the same product type. For a pending order, this function can only be called once. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.

    Args:
        order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        item_ids: The item ids to be modified, each such as '1008292230'. There could be duplicate items in the list.
        new_item_ids: The item ids to be modified for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.
        payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
    """
    orders, users, products = data["orders"], data["users"], data["products"]
    if order_id not in orders:
        return "Error: order not found"
    order = orders[order_id]
    if order["status"] != "pending":
        return "Error: non-pending order cannot be modified"
    missing = _counts_ok(order, item_ids)
    if missing:
        return f"Error: {missing} not found"
    if len(item_ids) != len(new_item_ids):
        return "Error: the number of items to be exchanged should match"
    diff_price = 0
    for item_id, new_item_id in zip(item_ids, new_item_ids):
        item = [item for item in order["items"] if item["item_id"] == item_id][0]
        variants = products[item["product_id"]]["variants"]
        if not (new_item_id in variants and variants[new_item_id]["available"]):
            return f"Error: new item {new_item_id} not found or available"
        diff_price += variants[new_item_id]["price"] - item["price"]
    methods = users[order["user_id"]]["payment_methods"]
    if payment_method_id not in methods:
        return "Error: payment method not found"
    method = methods[payment_method_id]
    if method["source"] == "gift_card" and method["balance"] < diff_price:
        return "Error: insufficient gift card balance to pay for the new item"
    order["payment_history"].append({
        "transaction_type": "payment" if diff_price > 0 else "refund",
        "amount": abs(diff_price),
        "payment_method_id": payment_method_id,
    })
    if method["source"] == "gift_card":
        method["balance"] -= diff_price
        method["balance"] = round(method["balance"], 2)
    for item_id, new_item_id in zip(item_ids, new_item_ids):
        item = [item for item in order["items"] if item["item_id"] == item_id][0]
        variant = products[item["product_id"]]["variants"][new_item_id]
        item["item_id"] = new_item_id
        item["price"] = variant["price"]
        item["options"] = variant["options"]
    order["status"] = "pending (item modified)"
    return json.dumps(order)


def modify_pending_order_payment(order_id: str, payment_method_id: str) -> str:
    """Modify the payment method of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.

    Args:
        order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
    """
    orders, users = data["orders"], data["users"]
    if order_id not in orders:
        return "Error: order not found"
    order = orders[order_id]
    if order["status"] != "pending":
        return "Error: non-pending order cannot be modified"
    methods = users[order["user_id"]]["payment_methods"]
    if payment_method_id not in methods:
        return "Error: payment method not found"
    history = order["payment_history"]
    if len(history) > 1 or history[0]["transaction_type"] != "payment":
        return "Error: there should be exactly one payment for a pending order"
    if history[0]["payment_method_id"] == payment_method_id:
        return "Error: the new payment method should be different from the current one"
    amount = history[0]["amount"]
    method = methods[payment_method_id]
    if method["source"] == "gift_card" and method["balance"] < amount:
        return "Error: insufficient gift card balance to pay for the order"
    old_id = history[0]["payment_method_id"]
    history.extend([
        {"transaction_type": "payment", "amount": amount, "payment_method_id": payment_method_id},
        {"transaction_type": "refund", "amount": amount, "payment_method_id": old_id},
    ])
    if method["source"] == "gift_card":
        method["balance"] -= amount
        method["balance"] = round(method["balance"], 2)
    if "gift_card" in old_id:
        old = methods[old_id]
        old["balance"] += amount
        old["balance"] = round(old["balance"], 2)
    return json.dumps(order)


def modify_user_address(user_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str) -> str:
    """Modify the default address of a user. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.

    Args:
        user_id: The user id, such as 'sara_doe_496'.
        address1: The first line of the address, such as '123 Main St'.
        address2: The second line of the address, such as 'Apt 1' or ''.
        city: The city, such as 'San Francisco'.
        state: The state, such as 'CA'.
        country: The country, such as 'USA'.
        zip: The zip code, such as '12345'.
    """
    users = data["users"]
    if user_id not in users:
        return "Error: user not found"
    user = users[user_id]
    user["address"] = _address(address1, address2, city, state, country, zip)
    return json.dumps(user)


def return_delivered_order_items(order_id: str, item_ids: list[str], payment_method_id: str) -> str:
    """Return some items of a delivered order. The order status will be changed to 'return requested'. The agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed. The user will receive follow-up email for how and where to return the item.

    Args:
        order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        item_ids: The item ids to be returned, each such as '1008292230'. There could be duplicate items in the list.
        payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
    """
    orders, users = data["orders"], data["users"]
    if order_id not in orders:
        return "Error: order not found"
    order = orders[order_id]
    if order["status"] != "delivered":
        return "Error: non-delivered order cannot be returned"
    if payment_method_id not in users[order["user_id"]]["payment_methods"]:
        return "Error: payment method not found"
    if "gift_card" not in payment_method_id and payment_method_id != order["payment_history"][0]["payment_method_id"]:
        return "Error: payment method should be either the original payment method or a gift card"
    if _counts_ok(order, item_ids):
        return "Error: some item not found"
    order["status"] = "return requested"
    order["return_items"] = sorted(item_ids)
    order["return_payment_method_id"] = payment_method_id
    return json.dumps(order)


def think(thought: str) -> str:
    """Use the tool to think about something. It will not obtain new information or change the database, but just append the thought to the log. Use it when complex reasoning is needed.

    Args:
        thought: A thought to think about.
    """
    return ""


def transfer_to_human_agents(summary: str) -> str:
    """Transfer the user to a human agent, with a summary of the user's issue. Only transfer if the user explicitly asks for a human agent, or if the user's issue cannot be resolved by the agent with the current actions.

    Args:
        summary: A summary of the user's issue.
    """
    return "Transfer successful"

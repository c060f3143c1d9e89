import unittest

from fixtures import CONVO, TOOLS, store_tokenizer, template

from wasmlearn.tokenizer import Tokenizer


class TokenizerTest(unittest.TestCase):
    def test_round_trip_exact(self):
        tok = store_tokenizer()
        for s in ["", "cancel_order", "  two  spaces\ttab\nnewline", "#W1002 → café ☕ 𝄞",
                  '{"order_id": "#W1002", "reason": "ordered by mistake"}', "\u0000\x7f",
                  "olivia.chen@example.com"]:
            self.assertEqual(tok.decode(tok.encode(s)), s, s)

    def test_environment_words_are_single_tokens(self):
        tok = store_tokenizer()
        for w in ["find_customer_by_email", "cancel_order", "order_id", " customer"]:
            self.assertEqual(len(tok.encode(w)), 1, w)
        # digits are always one token each, so ids can be copied digit by digit
        self.assertEqual(len(tok.encode("1002")), 4)

    def test_save_load(self):
        import os
        import tempfile
        tok = store_tokenizer()
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "t.json")
            tok.save(p)
            t2 = Tokenizer.load(p)
        s = "Hi, this is Olivia Chen"
        self.assertEqual(t2.encode(s), tok.encode(s))
        with self.assertRaises(ValueError):
            Tokenizer.from_dict({"format": "other"})


class TemplateTest(unittest.TestCase):
    def test_mask_marks_only_assistant_tokens(self):
        tok = store_tokenizer()
        tpl = template(tok)
        ids, mask = tpl.render(CONVO, TOOLS)
        self.assertEqual(len(ids), len(mask))
        own = tok.decode([i for i, m in zip(ids, mask) if m])
        self.assertIn('<tool_call>{"name": "cancel_order", "arguments": {"order_id": "#W1002"', own)
        self.assertIn("Done: order #W1002 is cancelled.", own)
        self.assertNotIn("olivia.chen@example.com).", own)  # the user's text
        self.assertNotIn("C1001", own)  # a tool output
        self.assertNotIn("<|assistant|>", own)  # role markers are given, not produced
        self.assertEqual(own.count("<|end|>"), 3)  # the policy learns to stop
        full = tok.decode(ids)
        self.assertIn("cancel_order(order_id, reason)", full)

    def test_parse_generated(self):
        tok = store_tokenizer()
        tpl = template(tok)
        ids = tpl.assistant_ids("Let me look.", [CONVO[4]["tool_calls"][0]]) + [tpl.END]
        content, calls = tpl.parse(ids)
        self.assertEqual(content, "Let me look.")
        self.assertEqual(calls[0]["function"]["name"], "cancel_order")
        import json
        self.assertEqual(json.loads(calls[0]["function"]["arguments"]),
                         {"order_id": "#W1002", "reason": "ordered by mistake"})
        # unparseable blocks stay in content
        bad = tok.encode("x") + [tpl.CALL_OPEN] + tok.encode('{"name": cancel') + [tpl.CALL_CLOSE]
        content, calls = tpl.parse(bad)
        self.assertEqual(calls, [])
        self.assertIn('<tool_call>{"name": cancel</tool_call>', content)

    def test_truncation_budgets(self):
        tok = store_tokenizer()
        tpl = type(template(tok))(tok, max_system_tokens=3, max_tool_tokens=2)
        ids, _ = tpl.render(CONVO, TOOLS)
        full, _ = template(tok).render(CONVO, TOOLS)
        self.assertLess(len(ids), len(full))


if __name__ == "__main__":
    unittest.main()

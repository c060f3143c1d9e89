# Writes the replayed chat-completion responses in the shape vLLM's
# OpenAI-compatible server returns with "logprobs": true and
# "return_token_ids": true. Run: python3 gen.py (from this directory).
import json, re, zlib

def toks(text):
    pieces = re.findall(r"\s?\w+|\s?[^\w\s]", text) or [""]
    return pieces, [zlib.crc32(p.encode()) % 151000 for p in pieces]

def resp(n, content=None, calls=None, finish="stop", prompt_len=900, model="Qwen/Qwen3-8B", reasoning=None):
    gen = content or ""
    if calls:
        gen += "".join("<tool_call>\n" + json.dumps({"name": c[0], "arguments": c[1]}) + "\n</tool_call>" for c in calls)
    pieces, ids = toks(gen)
    lp = [{"token": p, "logprob": round(-0.01 - (i % 7) * 0.13, 4), "bytes": list(p.encode()), "top_logprobs": []}
          for i, p in enumerate(pieces)]
    msg = {"role": "assistant", "content": content, "refusal": None, "annotations": None, "audio": None,
           "function_call": None, "tool_calls": [], "reasoning_content": reasoning}
    if calls:
        msg["tool_calls"] = [{"id": "chatcmpl-tool-%08x%d" % (zlib.crc32(gen.encode()), i), "type": "function",
                              "function": {"name": c[0], "arguments": c[1] if isinstance(c[1], str) else json.dumps(c[1])}}
                             for i, c in enumerate(calls)]
    return {
        "id": "chatcmpl-%032x" % zlib.crc32((gen + str(n)).encode()),
        "object": "chat.completion", "created": 1763900000 + n, "model": model,
        "choices": [{"index": 0, "message": msg,
                     "logprobs": {"content": lp}, "finish_reason": finish, "stop_reason": None,
                     "token_ids": ids}],
        "service_tier": None, "system_fingerprint": None,
        "usage": {"prompt_tokens": prompt_len, "total_tokens": prompt_len + len(ids), "completion_tokens": len(ids),
                  "prompt_tokens_details": None},
        "prompt_logprobs": None, "prompt_token_ids": [151644 + (i % 5) for i in range(prompt_len)],
        "kv_transfer_params": None,
    }

agent = [
    # parallel tool calls
    resp(0, None, [("find_customer_by_email", {"email": "olivia.chen@example.com"}),
                   ("get_order", {"order_id": "#W1002"})], "tool_calls", 1480,
         reasoning="The customer gave her email and order id; look both up before cancelling."),
    # malformed JSON arguments (the model stopped mid-object)
    resp(1, None, [("cancel_order", '{"order_id": "#W1002", "reason": "ordered by mistake"')], "tool_calls", 1702),
    # a tool the environment does not have
    resp(2, None, [("refund_everything", {"order_id": "#W1002"})], "tool_calls", 1790),
    # a tool call embedded in text (server without a tool parser)
    resp(3, 'I will cancel it now.\n<tool_call>\n{"name": "cancel_order", "arguments": {"order_id": "#W1002", "reason": "ordered by mistake"}}\n</tool_call>', None, "stop", 1850),
    resp(4, "Your order #W1002 is cancelled and $234.98 is refunded to your Visa card.", None, "stop", 1990),
]
json.dump(agent, open("agent_turns.json", "w"))

# A conversation: the agent asks, the simulated user answers, the agent acts.
convo_agent = [
    resp(10, "Happy to help. Could you give me your email address and the order number?", None, "stop", 1460),
    resp(11, None, [("find_customer_by_email", {"email": "olivia.chen@example.com"})], "tool_calls", 1530),
    resp(12, None, [("get_order", {"order_id": "#W1002"})], "tool_calls", 1610),
    resp(13, "Order #W1002 is pending. I will cancel it with the reason 'ordered by mistake'. Shall I go ahead?", None, "stop", 1790),
    resp(14, None, [("cancel_order", {"order_id": "#W1002", "reason": "ordered by mistake"})], "tool_calls", 1850),
    resp(15, "Done: order #W1002 is cancelled and the full amount goes back to your Visa card.", None, "stop", 1930),
]
json.dump(convo_agent, open("convo_agent.json", "w"))
convo_user = [
    resp(20, "Hi, I placed an order last night by mistake and I'd like to cancel it.", None, "stop", 310, "gpt-4o-mini"),
    resp(21, "Sure, it's olivia.chen@example.com and the order is #W1002.", None, "stop", 360, "gpt-4o-mini"),
    resp(22, "Yes, please cancel it.", None, "stop", 420, "gpt-4o-mini"),
    resp(23, "Great, thank you! ###STOP###", None, "stop", 470, "gpt-4o-mini"),
]
json.dump(convo_user, open("convo_user.json", "w"))

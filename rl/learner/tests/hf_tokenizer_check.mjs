// Encodes texts and renders + encodes conversations with Hugging Face's
// JavaScript tokenizers and Jinja (an implementation of tokenizer.json and
// chat templates independent of this repository). Input: JSON on stdin
// {tokenizer, config, texts, convos}; output: JSON on stdout.
// Run by test_hf_tokenizer.py when WASMLEARN_HF_JS names a node_modules
// directory holding @huggingface/tokenizers and @huggingface/jinja.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const mods = process.env.WASMLEARN_HF_JS;
const require = createRequire(path.join(mods, "x.js"));
const { Tokenizer } = require("@huggingface/tokenizers");
const { Template } = require("@huggingface/jinja");

const input = JSON.parse(readFileSync(0, "utf8"));
const tok = new Tokenizer(input.tokenizer, input.config);
const enc = (s) => tok.encode(s, { add_special_tokens: false }).ids;
const tpl = new Template(input.config.chat_template);
const out = {
  texts: input.texts.map(enc),
  decoded: input.texts.map((s) => (s ? tok.decode(enc(s)) : "")),
  convos: input.convos.map((c) => {
    const text = tpl.render({ messages: c.messages, tools: c.tools, add_generation_prompt: c.add_generation_prompt });
    return { text, ids: enc(text) };
  }),
};
process.stdout.write(JSON.stringify(out));

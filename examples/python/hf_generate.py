"""A Hugging Face causal LM instrumented without touching its code: forward hooks time the prefill, each
decode step and each decoder layer (tp.begin in the pre-hook, s.end() in the post-hook), and a
streamer records each request's tokens as generate() produces them. generate() runs in a thread of
its own, as with TextIteratorStreamer, so the hooks and the streamer record from that thread.

    pip install torch transformers
    PYTHONPATH=build/python python3 examples/python/hf_generate.py              # a random-init Llama
    PYTHONPATH=build/python python3 examples/python/hf_generate.py --model NAME  # any causal LM

Nothing is downloaded unless --model names a checkpoint. The traps this avoids: generate() hands the
streamer the prompt first (counting it as a token makes TTFT about 0), and a text streamer yields
max_new_tokens + 1 items (the end). Tokens are recorded where they are generated, not where a consumer
reads them (that would add the delivery delay to every figure)."""
import argparse
import queue
import threading

import torch
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM
from transformers.generation.streamers import BaseStreamer

import ttft_tpot


class TimedStreamer(BaseStreamer):
    """generate()'s streamer: put() gets the prompt first (skipped), then each step's new token."""

    def __init__(self, tp, rid):
        self.tp, self.rid, self.prompt_seen, self.q = tp, rid, False, queue.Queue()

    def put(self, value):
        if not self.prompt_seen:
            self.prompt_seen = True
            return
        self.tp.tokens(self.rid, n=int(value.numel()))  # batch 1: one token a step
        self.q.put(value)

    def end(self):
        self.tp.finish(self.rid)
        self.q.put(None)

    def __iter__(self):
        while (item := self.q.get()) is not None:
            yield item


def instrument(tp, model):
    """Hook pairs on the model (a forward pass with more than one input token is the prefill) and on
    each decoder layer; the spans open between a pre-hook and its post-hook, keyed by module."""
    open_spans = {}

    def whole_pre(module, args, kwargs):
        ids = kwargs.get("input_ids") if kwargs.get("input_ids") is not None else args[0]
        n = int(ids.shape[-1])
        open_spans[module] = (tp.begin("prefill", "prefill", prompt_tokens=n) if n > 1
                              else tp.begin("decode_step", "decode"))

    def layer_pre(module, args, kwargs):
        open_spans[module] = tp.begin("decoder_layer", "kernel")

    def post(module, args, kwargs, output):
        open_spans.pop(module).end()

    model.register_forward_pre_hook(whole_pre, with_kwargs=True)
    model.register_forward_hook(post, with_kwargs=True)
    for layer in model.model.layers:
        layer.register_forward_pre_hook(layer_pre, with_kwargs=True)
        layer.register_forward_hook(post, with_kwargs=True)


def load(name):
    if name:
        return AutoModelForCausalLM.from_pretrained(name).eval()
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=1024, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=512)
    return LlamaForCausalLM(config).eval()


def run(requests=4, max_new_tokens=32, warmup=1, prompt_len=32, name=None):
    """warmup requests inside a warmup section, then requests one at a time; returns the collector and
    each measured request's streamed tokens."""
    model = load(name)
    tp = ttft_tpot.Collector()
    instrument(tp, model)
    vocab = model.config.vocab_size

    def one(rid):
        streamer = TimedStreamer(tp, rid)
        ids = torch.randint(0, vocab, (1, prompt_len))
        tp.submit(rid)
        worker = threading.Thread(target=model.generate, kwargs=dict(
            input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_new_tokens,
            min_new_tokens=max_new_tokens, do_sample=False, streamer=streamer, pad_token_id=0))
        worker.start()
        tokens = list(streamer)
        worker.join()
        return tokens

    with torch.no_grad():
        with tp.warmup():
            for k in range(warmup):
                one("warm%d" % k)
        texts = [one("r%d" % k) for k in range(requests)]
    return tp, texts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="a checkpoint to load (default: a random-init Llama)")
    ap.add_argument("--requests", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=32)
    args = ap.parse_args()
    tp, _ = run(args.requests, args.max_new_tokens, name=args.model)
    print(tp.report())


if __name__ == "__main__":
    main()

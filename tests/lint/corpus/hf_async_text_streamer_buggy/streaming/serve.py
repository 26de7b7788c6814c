"""Stream a completion to stdout: generation runs on a worker thread, the main thread iterates
the streamer, as in the transformers streaming recipe."""

import sys
from threading import Thread

import torch

from streaming.generation import greedy_generate
from streaming.streamer import AsyncTextIteratorStreamer


def stream_completion(model, tokenizer, prompt, max_new_tokens=256):
    input_ids = tokenizer(prompt, return_tensors="pt").input_ids.to("cuda")
    streamer = AsyncTextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True)
    worker = Thread(
        target=greedy_generate,
        kwargs=dict(
            model=model,
            input_ids=input_ids,
            max_new_tokens=max_new_tokens,
            eos_token_id=tokenizer.eos_token_id,
            streamer=streamer,
        ),
    )
    worker.start()
    pieces = []
    for piece in streamer:
        sys.stdout.write(piece)
        sys.stdout.flush()
        pieces.append(piece)
    worker.join()
    return "".join(pieces)


def main():
    from transformers import AutoModelForCausalLM, AutoTokenizer

    name = sys.argv[1]
    tokenizer = AutoTokenizer.from_pretrained(name)
    model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16).to("cuda").eval()
    stream_completion(model, tokenizer, sys.argv[2])


if __name__ == "__main__":
    main()

"""Overlapped decoding in the shape of FlexGen's generation_loop_overlap_single_batch: the KV of
layer j+1 is loaded on the load stream while layer j computes, and the new KV of layer j is stored
home by a store job on a worker stream while layer j+1 computes."""

from typing import List

import torch
from torch import nn

from flexsched.layers import SelfAttention
from flexsched.policy import Policy, ValueHolder
from flexsched.streams import StreamExecutor


class OffloadedLM:
    def __init__(self, vocab: int, hidden: int, heads: int, num_layers: int, policy: Policy, max_len: int):
        self.policy = policy
        self.device = torch.device("cuda")
        self.embed = nn.Embedding(vocab, hidden).to(self.device)
        self.layers: List[SelfAttention] = [SelfAttention(hidden, heads, j).to(self.device) for j in range(num_layers)]
        self.lm_head = nn.Linear(hidden, vocab, bias=False).to(self.device)
        self.num_layers = num_layers
        self.cache_home = [layer.init_cache_one_gpu_batch(policy, max_len) for layer in self.layers]
        self.cache_read_buf = [ValueHolder() for _ in range(num_layers)]
        self.cache_write_buf = [ValueHolder() for _ in range(num_layers)]
        self.load_cache_stream = torch.cuda.Stream()
        self.load_events = [torch.cuda.Event() for _ in range(num_layers)]
        self.store_executor = StreamExecutor(policy.num_store_streams)

    def load_cache(self, j: int, pos: int) -> None:
        if pos == 0:
            return
        with torch.cuda.stream(self.load_cache_stream):
            self.layers[j].load_cache(self.cache_home[j], self.cache_read_buf[j], pos, self.device)
            self.load_events[j].record()

    @torch.no_grad()
    def generate(self, input_ids: torch.Tensor, gen_len: int) -> torch.Tensor:
        prompt_len = input_ids.shape[1]
        hidden = self.embed(input_ids.to(self.device))
        outputs = []
        for i in range(gen_len):
            pos = 0 if i == 0 else prompt_len + i - 1
            self.load_cache(0, pos)
            stores = []
            for j in range(self.num_layers):
                if j + 1 < self.num_layers:
                    self.load_cache(j + 1, pos)
                if pos > 0:
                    torch.cuda.current_stream().wait_event(self.load_events[j])
                hidden = self.layers[j](hidden, self.cache_read_buf[j], self.cache_write_buf[j])
                kv_ready = torch.cuda.Event()
                kv_ready.record()
                stores.append(
                    self.store_executor.submit(
                        self.layers[j].store_cache, self.cache_home[j], self.cache_write_buf[j], pos, kv_ready
                    )
                )
            token = self.lm_head(hidden[:, -1]).argmax(-1, keepdim=True)
            outputs.append(token)
            hidden = self.embed(token)
            for f in stores:
                f.result()
        return torch.cat(outputs, dim=1)

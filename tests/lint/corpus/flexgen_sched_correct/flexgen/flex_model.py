"""Offloading schedule: overlap weight/cache I/O with per-layer compute."""
from __future__ import annotations

import logging

import torch

from .backend import ExecutionEnv
from .layers import SelfAttention, ValueHolder
from .policy import ModelConfig, Policy

logger = logging.getLogger(__name__)


class FlexLM:

    def __init__(self, config: ModelConfig, env: ExecutionEnv,
                 policy: Policy, prompt_len: int):
        self.config, self.env, self.policy = config, env, policy
        self.num_layers = config.num_hidden_layers
        assert self.num_layers >= 2, "the schedule pipelines adjacent layers"
        self.layers = [
            SelfAttention(config, env, policy, j, prompt_len)
            for j in range(self.num_layers)
        ]
        self.weight_read_buf = [ValueHolder() for _ in range(self.num_layers)]
        self.cache_read_buf = [ValueHolder() for _ in range(self.num_layers)]
        self.cache_write_buf = [ValueHolder() for _ in range(self.num_layers)]
        self.hidden: torch.Tensor | None = None

    def load_weight(self, i: int, j: int) -> None:
        if j == self.num_layers:
            j = 0
        with torch.cuda.stream(self.env.load_weight_stream):
            self.layers[j].load_weight(self.weight_read_buf[j])

    def load_cache(self, i: int, j: int) -> None:
        if j == self.num_layers:
            i, j = i + 1, 0
        with torch.cuda.stream(self.env.load_cache_stream):
            self.layers[j].load_cache(self.cache_read_buf[j], i)

    def store_cache(self, i: int, j: int) -> None:
        if j < 0:
            return
        with torch.cuda.stream(self.env.store_cache_stream):
            self.layers[j].store_cache(self.cache_write_buf[j], i)

    def compute_layer(self, i: int, j: int) -> None:
        self.hidden = self.layers[j].forward(self.hidden,
                                             self.cache_read_buf[j],
                                             self.weight_read_buf[j],
                                             self.cache_write_buf[j])

    def generation_loop_overlap(self, hidden: torch.Tensor,
                                gen_len: int) -> torch.Tensor:
        self.hidden = hidden
        self.load_weight(0, 0)
        self.load_cache(0, 0)
        self.env.sync()
        for i in range(gen_len):
            for j in range(self.num_layers):
                if i == gen_len - 1 and j == self.num_layers - 1:
                    self.compute_layer(i, j)
                else:
                    self.load_weight(i, j + 1)
                    self.load_cache(i, j + 1)
                    self.compute_layer(i, j)
                self.store_cache(i, j - 1)
                self.env.sync()
            self.store_cache(i, self.num_layers - 1)
            self.env.sync()
            logger.info("finished decode step %d", i)
        return self.hidden

import logging
from typing import List

import numpy as np
import torch

from .kv_home import init_cache_home
from .layers import InputEmbed, OutputEmbed, TransformerLayer
from .policy import Policy
from .utils import Task, ValueHolder, array_1d

logger = logging.getLogger(__name__)


class OptLM:
    """Runs an OPT model layer by layer, overlapping weight/cache I/O with computation."""

    def __init__(self, config, policy: Policy, host_weights: List[tuple], embed: torch.Tensor,
                 device: torch.device):
        self.config = config
        self.policy = policy
        self.device = device
        self.layers = [InputEmbed(embed, device)]
        for j in range(config.num_hidden_layers):
            self.layers.append(
                TransformerLayer(j, config.hidden_size, config.num_attention_heads, device)
            )
        self.layers.append(OutputEmbed(embed, device))
        self.num_layers = len(self.layers)

        self.load_weight_stream = torch.cuda.Stream()
        self.load_cache_stream = torch.cuda.Stream()
        self.store_cache_stream = torch.cuda.Stream()

        self.weight_home = array_1d(self.num_layers, ValueHolder)
        for j, weights in enumerate(host_weights, start=1):
            pinned = tuple(w.pin_memory() if policy.pin_weight else w for w in weights)
            self.weight_home[j].store(pinned)
        self.cache_home = array_1d(self.num_layers, ValueHolder)
        self.weight_read_buf = array_1d(self.num_layers, ValueHolder)
        self.cache_read_buf = array_1d(self.num_layers, ValueHolder)
        self.cache_write_buf = array_1d(self.num_layers, ValueHolder)
        self.hidden = ValueHolder()
        self.task = None
        self.output_ids = None

    def init_cache(self, task: Task):
        batch = self.policy.gpu_batch_size
        max_len = task.prompt_len + task.gen_len
        for j in range(1, self.num_layers - 1):
            self.cache_home[j].clear()
            self.cache_home[j].store(
                init_cache_home(max_len, batch, self.config.hidden_size, torch.float16)
            )

    def sync(self):
        torch.cuda.synchronize()

    def _seq_start(self, i: int) -> int:
        return 0 if i == 0 else self.task.prompt_len + i - 1

    def load_weight(self, i, j):
        if j == self.num_layers:
            j = 0
        with torch.cuda.stream(self.load_weight_stream):
            self.layers[j].load_weight(self.weight_home[j], self.weight_read_buf[j])

    def load_cache(self, i, j):
        if j == self.num_layers:
            j = 0
            i += 1
            if i == self.task.gen_len:
                return
        with torch.cuda.stream(self.load_cache_stream):
            self.layers[j].load_cache(self.cache_home[j], self.cache_read_buf[j], self._seq_start(i))

    def store_cache(self, i, j):
        if j < 0:
            return
        with torch.cuda.stream(self.store_cache_stream):
            self.layers[j].store_cache(self.cache_home[j], self.cache_write_buf[j], self._seq_start(i))

    def load_hidden(self, i, j):
        if j != 0:
            return
        if i == 0:
            ids = self.output_ids[:, : self.task.prompt_len]
        else:
            pos = self.task.prompt_len + i - 1
            ids = self.output_ids[:, pos : pos + 1]
        self.hidden.val = torch.from_numpy(ids).to(self.device)

    def compute_layer(self, i, j):
        self.layers[j].forward(
            self.hidden, self.weight_read_buf[j], self.cache_read_buf[j], self.cache_write_buf[j]
        )

    def store_hidden(self, i, j):
        if j != self.num_layers - 1:
            return
        pos = self.task.prompt_len + i
        self.output_ids[:, pos : pos + 1] = self.hidden.pop().cpu().numpy()

    def generate(self, inputs: np.ndarray, max_new_tokens: int) -> np.ndarray:
        prompt_len = inputs.shape[1]
        self.task = Task(inputs=inputs, prompt_len=prompt_len, gen_len=max_new_tokens)
        self.output_ids = np.zeros((inputs.shape[0], prompt_len + max_new_tokens), dtype=np.int64)
        self.output_ids[:, :prompt_len] = inputs
        self.init_cache(self.task)
        logger.info("generate: prompt_len=%d gen_len=%d", prompt_len, max_new_tokens)

        self.load_weight(0, 0)
        self.sync()
        for i in range(max_new_tokens):
            for j in range(self.num_layers):
                self.load_weight(i, j + 1)
                self.load_cache(i, j + 1)
                self.load_hidden(i, j)
                self.compute_layer(i, j)
                self.store_cache(i, j)
                self.store_hidden(i, j)
                self.sync()
        return self.output_ids

"""Public entry: a background generation thread fed by ``add_request``."""

import queue
import threading
import uuid

import torch

from cbatch.cache import PagedKVCache
from cbatch.processor import ContinuousBatchProcessor
from cbatch.requests import RequestState
from cbatch.scheduler import FIFOScheduler


class ContinuousBatchingManager:
    def __init__(self, model, config, num_blocks=4096, num_host_blocks=16384, block_size=32, max_batch_tokens=2048):
        self.model = model
        self.config = config
        self.max_batch_tokens = max_batch_tokens
        self.num_blocks = num_blocks
        self.num_host_blocks = num_host_blocks
        self.block_size = block_size
        self.input_queue = queue.Queue()
        self.output_queue = queue.Queue()
        self.stop_event = threading.Event()
        self._thread = None

    def start(self):
        self._thread = threading.Thread(target=self._run_generation_loop, name="cb-generation", daemon=True)
        self._thread.start()

    def stop(self):
        self.stop_event.set()
        if self._thread is not None:
            self._thread.join()

    def add_request(self, prompt_ids, max_new_tokens=256):
        request_id = uuid.uuid4().hex
        self.input_queue.put(
            RequestState(request_id, list(prompt_ids), max_new_tokens, self.config.eos_token_id)
        )
        return request_id

    def get_result(self, timeout=None):
        return self.output_queue.get(timeout=timeout)

    def _run_generation_loop(self):
        cfg = self.config
        device = torch.device("cuda", torch.cuda.current_device())
        cache = PagedKVCache(
            cfg.num_hidden_layers,
            self.num_blocks,
            self.num_host_blocks,
            self.block_size,
            cfg.num_key_value_heads,
            cfg.head_dim,
            torch.bfloat16,
            device,
        )
        scheduler = FIFOScheduler(cache, self.max_batch_tokens)
        processor = ContinuousBatchProcessor(
            self.model, cache, scheduler, self.output_queue, self.max_batch_tokens, device
        )
        # the pools were zero-filled on this thread's default stream; the compute and swap
        # streams do not order behind it
        torch.cuda.synchronize(device)
        while not self.stop_event.is_set():
            while True:
                try:
                    scheduler.add(self.input_queue.get_nowait())
                except queue.Empty:
                    break
            if not processor.step():
                self.stop_event.wait(0.001)

import logging
import os
import queue
import threading
import time

import torch

from .snapshot import PendingSnapshot

logger = logging.getLogger(__name__)


class PromptCacheStore:
    """``save(cache, key)`` is called on the generation thread right after the prefill of a
    prompt; it returns at once, and the snapshot reaches ``<root>/<key>.pt`` a little later."""

    def __init__(self, root, device="cuda"):
        self.root = root
        os.makedirs(root, exist_ok=True)
        self.device = torch.device(device)
        self.copy_stream = torch.cuda.Stream(self.device)
        self._pending = queue.Queue()
        self._writer = threading.Thread(target=self._writer_loop, name="prompt-cache-writer", daemon=True)
        self._writer.start()

    def save(self, cache, key):
        """``cache`` is a DynamicCache-like object with per-layer ``key_cache`` / ``value_cache``."""
        self.copy_stream.wait_stream(torch.cuda.current_stream(self.device))
        tensors = {}
        with torch.cuda.stream(self.copy_stream):
            for idx, (k, v) in enumerate(zip(cache.key_cache, cache.value_cache)):
                tensors[f"key.{idx}"] = k.to("cpu", non_blocking=True)
                tensors[f"value.{idx}"] = v.to("cpu", non_blocking=True)
                # the cache may be released by the caller before the copies have run
                k.record_stream(self.copy_stream)
                v.record_stream(self.copy_stream)
        snapshot = PendingSnapshot(
            key=key,
            path=os.path.join(self.root, f"{key}.pt"),
            seq_len=cache.key_cache[0].shape[-2],
            tensors=tensors,
        )
        snapshot.copied.record(self.copy_stream)
        self._pending.put(snapshot)
        return snapshot

    def _writer_loop(self):
        while True:
            snapshot = self._pending.get()
            if snapshot is None:
                self._pending.task_done()
                return
            self._write(snapshot)
            self._pending.task_done()

    def _write(self, snapshot: PendingSnapshot):
        tmp_path = snapshot.path + ".tmp"
        # expect: KVG003
        torch.save({"seq_len": snapshot.seq_len, "tensors": snapshot.tensors}, tmp_path)
        os.replace(tmp_path, snapshot.path)
        logger.info("prompt cache %s: %.1f MiB written %.3fs after save()", snapshot.key,
                    snapshot.nbytes / 2**20, time.monotonic() - snapshot.queued_at)

    def flush(self):
        self._pending.join()

    def close(self):
        self.flush()
        self._pending.put(None)
        self._writer.join()

import queue
import threading
from typing import Any

import torch


def copy_loop(jobs: "queue.SimpleQueue[dict[str, Any] | None]",
              completed: "queue.SimpleQueue[dict[str, Any]]",
              gpu_cache: torch.Tensor, cpu_cache: torch.Tensor, device: torch.device) -> None:
    """KV caches are [2, num_blocks, block_size, heads, head_dim]."""
    torch.cuda.set_device(device)
    while True:
        job = jobs.get()
        if job is None:
            return
        stream: torch.cuda.Stream = job["stream"]
        stream.wait_event(job["after"])
        with torch.cuda.stream(stream):
            if job["kind"] == "store":
                for g, c in zip(job["src"], job["dst"]):
                    cpu_cache[:, c].copy_(gpu_cache[:, g], non_blocking=True)
            else:
                for c, g in zip(job["src"], job["dst"]):
                    gpu_cache[:, g].copy_(cpu_cache[:, c], non_blocking=True)
            job["done"].record()
        completed.put(job)


def start_copy_thread(gpu_cache: torch.Tensor, cpu_cache: torch.Tensor):
    jobs: "queue.SimpleQueue[dict[str, Any] | None]" = queue.SimpleQueue()
    completed: "queue.SimpleQueue[dict[str, Any]]" = queue.SimpleQueue()
    thread = threading.Thread(target=copy_loop, daemon=True, name="kv-prefix-copy",
                              args=(jobs, completed, gpu_cache, cpu_cache, gpu_cache.device))
    thread.start()
    return jobs, completed

# SPDX-License-Identifier: Apache-2.0
import queue
from dataclasses import dataclass

import torch

from .outputs import LogprobsTensors


@dataclass
class PendingLogprobs:
    req_ids: list[str]
    logprobs: LogprobsTensors  # pinned host tensors, filled asynchronously
    copy_done: torch.cuda.Event


class AsyncLogprobsCopier:
    """Starts the device->host copy of top-k logprobs without blocking the
    model runner; the detokenizer thread picks the result up from a queue."""

    def __init__(self, out_queue: "queue.Queue[PendingLogprobs | None]"):
        self._out = out_queue

    def submit(self, req_ids: list[str], logprobs: LogprobsTensors) -> None:
        # Issued on the sampler's stream, right behind the kernels that
        # produced the logprobs; the copy engine still overlaps the next step.
        logprobs_cpu = logprobs.to_cpu_nonblocking()
        copy_done = torch.cuda.Event()
        copy_done.record()
        self._out.put(PendingLogprobs(req_ids, logprobs_cpu, copy_done))

# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
"""Ships staged KV to the generation instance from a thread of its own."""

import queue
import threading
from concurrent.futures import Future
from dataclasses import dataclass

import torch


@dataclass
class SendJob:
    request_id: int
    slot: torch.Tensor
    staging: torch.Tensor
    staged: torch.cuda.Event
    future: Future


class SendWorker(threading.Thread):

    def __init__(self, connection, free_slots: "queue.Queue[torch.Tensor]"):
        super().__init__(name="kv-send", daemon=True)
        self.connection = connection
        self.free_slots = free_slots
        self.jobs: "queue.Queue[SendJob | None]" = queue.Queue()

    def submit(self, job: SendJob) -> None:
        self.jobs.put(job)

    def stop(self) -> None:
        self.jobs.put(None)

    def run(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                break
            try:
                job.staged.synchronize()
                self.connection.send_header(job.request_id, job.staging.numel() * job.staging.element_size())
                self.connection.sendall(job.staging.numpy().tobytes())
                job.future.set_result(job.request_id)
            except Exception as exc:  # surfaced through the future
                job.future.set_exception(exc)
            finally:
                self.free_slots.put(job.slot)

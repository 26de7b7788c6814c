# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
"""Pulling published weights into the rollout model between decode steps."""

import logging

import torch

logger = logging.getLogger(__name__)


class RolloutWeightRefitter:

    def __init__(self, model, receiver):
        # receiver: the trainer-side channel (IPC / NCCL broadcast to host) of new weights
        self.receiver = receiver
        self.params = dict(model.named_parameters())
        self.host = {name: torch.empty(p.shape, dtype=p.dtype, device="cpu", pin_memory=True)
                     for name, p in self.params.items()}
        self.refit_stream = torch.cuda.Stream()
        self.refit_done = torch.cuda.Event()
        self.loaded_version = 0

    @torch.no_grad()
    def maybe_refit(self):
        version = self.receiver.latest_version()
        if version is None or version == self.loaded_version:
            return False
        # the host buffers are still being read by the previous refit's copies
        self.refit_done.synchronize()
        self.receiver.recv_into(self.host, version)
        previous = torch.cuda.current_stream()
        # the step queued before this refit still reads the old weights
        self.refit_stream.wait_stream(previous)
        torch.cuda.set_stream(self.refit_stream)
        try:
            for name, host in self.host.items():
                self.params[name].data.copy_(host, non_blocking=True)
            self.refit_done.record()
        finally:
            torch.cuda.set_stream(previous)
        # decode steps queued from now on read the new weights
        previous.wait_event(self.refit_done)
        self.loaded_version = version
        logger.info("rollout weights refit to version %d", version)
        return True

"""The training loop that feeds the swap worker: it runs every step under its own compute stream,
updates the fp32 master partitions, and hands them to the worker for swap-out."""

import torch

from pipeswap.worker import SwapWorker


class OffloadTrainer:
    def __init__(self, model, partitions, device):
        self.model = model
        self.partitions = partitions
        self.compute_stream = torch.cuda.Stream(device=device)
        self.host_partitions = [torch.empty(p.shape, dtype=p.dtype, pin_memory=True) for p in partitions]
        self.worker = SwapWorker(device)
        self.step_id = 0

    def train_step(self, batch, lr):
        with torch.cuda.stream(self.compute_stream):
            loss = self.model(batch).float().mean()
            loss.backward()
            for partition in self.partitions:
                partition.add_(partition.grad, alpha=-lr)
            self.worker.submit(self.step_id, list(zip(self.partitions, self.host_partitions)))
        self.step_id += 1
        return loss

    def wait_swapped(self):
        request_id, done = self.worker.completed.get()
        done.synchronize()
        return request_id

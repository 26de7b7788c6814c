from __future__ import annotations

import torch

from .config import TrainArgs


class data_prefetcher:
    """Overlaps the H2D copy + normalisation of batch i+1 with compute on batch i.

    The loader yields uint8 NCHW images from ``fast_collate`` in pinned memory
    (``pin_memory=True``, ``drop_last=True``), so every batch has the same shape
    and we can keep a small ring of device buffers instead of reallocating.
    """

    def __init__(self, loader, args: TrainArgs, num_buffers: int = 2) -> None:
        self.loader = iter(loader)
        self.stream = torch.cuda.Stream()
        self.mean = torch.tensor([m * 255 for m in args.mean]).cuda().view(1, 3, 1, 1)
        self.std = torch.tensor([s * 255 for s in args.std]).cuda().view(1, 3, 1, 1)
        self._inputs = [
            torch.empty(args.input_shape, dtype=torch.float32, device="cuda") for _ in range(num_buffers)
        ]
        self._targets = [
            torch.empty((args.batch_size,), dtype=torch.int64, device="cuda") for _ in range(num_buffers)
        ]
        self._slot = 0
        self.next_input: torch.Tensor | None = None
        self.next_target: torch.Tensor | None = None
        self.preload()

    def preload(self) -> None:
        try:
            cpu_input, cpu_target = next(self.loader)
        except StopIteration:
            self.next_input = None
            self.next_target = None
            return

        gpu_input = self._inputs[self._slot]
        gpu_target = self._targets[self._slot]
        self._slot = (self._slot + 1) % len(self._inputs)

        with torch.cuda.stream(self.stream):
            # expect: KVG004
            gpu_input.copy_(cpu_input, non_blocking=True)
            # expect: KVG004
            gpu_target.copy_(cpu_target, non_blocking=True)
            gpu_input.sub_(self.mean).div_(self.std)

        self.next_input = gpu_input
        self.next_target = gpu_target

    def next(self) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        torch.cuda.current_stream().wait_stream(self.stream)
        input = self.next_input
        target = self.next_target
        if input is not None:
            input.record_stream(torch.cuda.current_stream())
        if target is not None:
            target.record_stream(torch.cuda.current_stream())
        self.preload()
        return input, target

"""Writes layer activations to disk from a worker thread; one D2H stream per device."""

import asyncio
import functools

import torch


class ActivationDumper:
    def __init__(self, devices, directory):
        self._d2h = {dev: torch.cuda.Stream(device=dev) for dev in devices}
        self.device = devices[0]
        self.directory = directory

    @property
    def d2h_stream(self):
        return self._d2h[self.device]

    def _write(self, name, gpu, ready):
        stream = self.d2h_stream
        ready.wait(stream)
        host = torch.empty(gpu.shape, dtype=gpu.dtype, pin_memory=True)
        with torch.cuda.stream(stream):
            host.copy_(gpu, non_blocking=True)
        done = torch.cuda.Event()
        done.record(stream)
        done.synchronize()
        torch.save(host, f"{self.directory}/{name}.pt")

    async def dump(self, name, gpu):
        ready = torch.cuda.Event()
        ready.record()
        job = functools.partial(self._write, name, gpu, ready)
        await asyncio.to_thread(job)

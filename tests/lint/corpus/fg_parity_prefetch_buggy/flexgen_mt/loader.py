"""Host->device loaders that run on a thread pool, one CUDA stream per job."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

import torch


class StreamLoaderPool:
    def __init__(self, size: int, name: str):
        self.streams = [torch.cuda.Stream() for _ in range(size)]
        self.executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix=name)
        self.next_idx = 0

    def submit(self, fn, *args, after: torch.cuda.Event | None = None) -> Future:
        """Run fn(*args) on the next stream of the pool, in a worker thread.

        `after` is an event recorded by the caller; the stream waits for it
        before any of fn's copies are issued.  The future yields an event
        recorded once fn's copies are queued.
        """
        stream = self.streams[self.next_idx]
        self.next_idx = (self.next_idx + 1) % len(self.streams)
        device = torch.cuda.current_device()

        def _run() -> torch.cuda.Event:
            torch.cuda.set_device(device)
            with torch.cuda.stream(stream):
                if after is not None:
                    stream.wait_event(after)
                fn(*args)
                done = torch.cuda.Event()
                done.record(stream)
            return done

        return self.executor.submit(_run)


def wait_loaded(compute: torch.cuda.Stream, fut: Future | None) -> None:
    """Block the host until the job is queued, then order compute after it."""
    if fut is not None:
        compute.wait_event(fut.result())

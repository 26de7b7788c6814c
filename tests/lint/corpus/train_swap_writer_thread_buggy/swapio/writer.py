"""A writer thread that drains swapped-out optimizer state to files, the way NVMe swappers hand
pinned buffers to a background I/O worker. Bug: it writes a buffer as soon as it is dequeued,
while the device-to-host copy into it may still be running."""

import queue
import threading


class StateFileWriter:
    def __init__(self, pool):
        self.pool = pool
        self.jobs = queue.Queue()
        self.worker = threading.Thread(target=self._drain, name="swap-writer", daemon=True)
        self.worker.start()

    def submit(self, path, buffer, numel):
        self.jobs.put((path, buffer, numel))

    def _drain(self):
        while True:
            job = self.jobs.get()
            if job is None:
                break
            path, buffer, numel = job
            with open(path, "wb") as handle:
                # expect: KVG003
                handle.write(buffer[:numel].numpy().tobytes())
            self.pool.release(buffer)
            self.jobs.task_done()

    def flush(self):
        self.jobs.join()

"""A writer thread that drains swapped-out optimizer state to files, the way NVMe swappers hand
pinned buffers to a background I/O worker. Each job carries the event recorded after its copy and
the writer waits on it before touching the buffer."""

import queue
import threading


class StateFileWriter:
    def __init__(self, pool):
        self.pool = pool
        self.jobs = queue.Queue()
        self.worker = threading.Thread(target=self._drain, name="swap-writer", daemon=True)
        self.worker.start()

    def submit(self, path, buffer, numel, copied):
        self.jobs.put((path, buffer, numel, copied))

    def _drain(self):
        while True:
            job = self.jobs.get()
            if job is None:
                break
            path, buffer, numel, copied = job
            copied.synchronize()
            with open(path, "wb") as handle:
                handle.write(buffer[:numel].numpy().tobytes())
            self.pool.release(buffer)
            self.jobs.task_done()

    def flush(self):
        self.jobs.join()

"""A tiny job scheduler: callbacks registered from the forward pass run in order on one
background thread, so the forward pass never blocks on host I/O."""

import queue
import threading


class JobScheduler:
    def __init__(self, name="kv-save"):
        self._jobs = queue.Queue()
        self._pending = 0
        self._idle = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def register(self, callback):
        with self._idle:
            self._pending += 1
        self._jobs.put(callback)

    def drain(self):
        with self._idle:
            while self._pending:
                self._idle.wait()

    def _run(self):
        while True:
            callback = self._jobs.get()
            if callback is None:
                return
            try:
                callback()
            finally:
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()

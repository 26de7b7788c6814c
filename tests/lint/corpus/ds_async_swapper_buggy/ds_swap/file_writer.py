# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import queue
import threading

from deepspeed.utils.logging import logger

from ds_swap.constants import WRITER_QUEUE_DEPTH


class SwapFileWriter(object):
    """Background writer standing in for the aio handle on hosts without libaio."""

    def __init__(self, name='ds-swap-writer'):
        self._queue = queue.Queue(maxsize=WRITER_QUEUE_DEPTH)
        self._pending = 0
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def async_pwrite(self, tensors, paths):
        with self._cond:
            self._pending += len(tensors)
        self._queue.put((tensors, paths))

    def wait(self):
        with self._cond:
            while self._pending > 0:
                self._cond.wait()
        return True

    def _write_one(self, tensor, path):
        with open(path, 'wb') as fh:
            # expect: KVG003
            fh.write(tensor.numpy().tobytes())

    def _run(self):
        while True:
            tensors, paths = self._queue.get()
            for tensor, path in zip(tensors, paths):
                try:
                    self._write_one(tensor, path)
                except OSError as exc:
                    logger.error(f'swap write to {path} failed: {exc}')
                with self._cond:
                    self._pending -= 1
                    self._cond.notify_all()

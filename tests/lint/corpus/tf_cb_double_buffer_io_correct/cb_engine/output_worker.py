"""Background thread that publishes sampled tokens to the request states."""
import threading
from typing import Callable

from .io_buffers import PagedIOBuffers, StagedOutputs


class OutputWorker(threading.Thread):
    def __init__(self, processor, on_token: Callable[[str, int], None]):
        super().__init__(name="cb-output", daemon=True)
        self.queue = processor.output_queue
        self.io: PagedIOBuffers = processor.io
        self.last_token = processor.last_token
        self.on_token = on_token

    def run(self) -> None:
        while True:
            staged = self.queue.get()
            if staged is None:
                return
            self._publish(staged)

    def _publish(self, staged: StagedOutputs) -> None:
        host = self.io.host_tokens[staged.slot]
        staged.copy_done.synchronize()
        tokens = host[: staged.num_tokens].tolist()
        self.io.release_slot(staged.slot)
        for request_id, token in zip(staged.request_ids, tokens):
            self.last_token[request_id] = token
            self.on_token(request_id, token)

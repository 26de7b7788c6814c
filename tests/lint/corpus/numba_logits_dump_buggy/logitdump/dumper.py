import logging
import queue
import threading
from dataclasses import dataclass

from .constants import DUMP_DTYPE, MAX_INFLIGHT_RECORDS, NUM_STAGING_SLOTS, THREADS_PER_BLOCK
from .runtime import CudaRuntime, log_softmax_rows
from .writer import write_record

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DumpConfig:
    path: str
    max_batch: int
    vocab_size: int
    temperature: float = 1.0
    blocking_dump: bool = False
    device_id: int = 0


class LogitsDumper:

    def __init__(self, cfg: DumpConfig):
        self.cfg = cfg
        self.rt = CudaRuntime(cfg.device_id)
        shape = (cfg.max_batch, cfg.vocab_size)
        self._slots = self.rt.staging(NUM_STAGING_SLOTS, shape, DUMP_DTYPE)
        self._free: "queue.Queue[int]" = queue.Queue()
        for i in range(NUM_STAGING_SLOTS):
            self._free.put(i)
        self._ready: "queue.Queue[tuple[int, int] | None]" = queue.Queue()
        self._fh = open(cfg.path, "ab")
        self._fh_lock = threading.Lock()
        self._writer = threading.Thread(target=self._drain, name="logits-writer", daemon=True)
        self._writer.start()

    def _on_copied(self, stream, status, arg) -> None:
        self._ready.put(arg)

    def _drain(self) -> None:
        while True:
            item = self._ready.get()
            if item is None:
                return
            batch_id, slot = item
            with self._fh_lock:
                write_record(self._fh, batch_id, self._slots[slot][1])
            self._free.put(slot)

    def submit(self, batch_id: int, d_logits) -> None:
        slot = self._free.get()
        d_out, host = self._slots[slot]
        rows = d_logits.shape[0]
        log_softmax_rows[rows, THREADS_PER_BLOCK, self.rt.compute](
            d_logits, d_out, self.cfg.temperature
        )
        if self.cfg.blocking_dump:
            self.rt.compute.synchronize()
        else:
            ready = self.rt.record_on(self.rt.compute)
            ready.wait(stream=self.rt.compute)
        # expect: KVG001
        d_out.copy_to_host(host, stream=self.rt.xfer)

        if self._ready.qsize() >= MAX_INFLIGHT_RECORDS:
            with self._fh_lock:
                write_record(self._fh, batch_id, host)
            self._free.put(slot)
        else:
            self.rt.xfer.add_callback(self._on_copied, (batch_id, slot))

    def close(self) -> None:
        self.rt.xfer.synchronize()
        self._ready.put(None)
        self._writer.join()
        self._fh.close()

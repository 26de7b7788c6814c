"""Device<->host page transfers, one stream per direction. A submission is a context manager:
it makes the transfer stream current, orders it behind the producer (start_event), yields to the
caller that enqueues the copies, records the finish event and releases the layout (finally)."""

from contextlib import contextmanager
from typing import Any, Callable, List, NamedTuple, Optional

from sgl_hicache.device import get_device_module

device_module = get_device_module()


class L2Transfer(NamedTuple):
    host_pool: Any
    device_pool: Any
    host_pages: List[int]
    device_pages: List[int]


class TransferCompletion(NamedTuple):
    start_event: Any
    finish_event: Any


class L2TransferEngine:
    def __init__(self):
        self.device_to_host_stream = device_module.Stream()
        self.host_to_device_stream = device_module.Stream()

    @staticmethod
    def _start_event(start_event=None):
        if start_event is None:
            start_event = device_module.Event()
            start_event.record()
        return start_event

    @contextmanager
    def _submission(self, transfers: List[L2Transfer], stream, start_event=None):
        completion = TransferCompletion(device_module.Event(), device_module.Event())
        for t in transfers:
            t.host_pool.acquire_layout()
        finish_recorded = False
        try:
            with device_module.stream(stream):
                # producer-owned page tables are read while the copies are prepared, so take
                # the start event right where the transfer begins
                start_event = self._start_event(start_event)
                start_event.wait(stream)
                completion.start_event.record()
                yield transfers, completion
                completion.finish_event.record()
                finish_recorded = True
        except Exception:
            stream.synchronize()
            raise
        finally:
            for t in reversed(transfers):
                t.host_pool.release_layout(completion.finish_event if finish_recorded else None)

    def submit_device_to_host(self, transfers: List[L2Transfer]) -> TransferCompletion:
        with self._submission(transfers, self.device_to_host_stream) as (prepared, completion):
            for t in prepared:
                t.host_pool.backup_from_device_all_layer(t.device_pool, t.host_pages, t.device_pages)
        return completion

    def submit_host_to_device(self, transfers: List[L2Transfer], layer_num: int, start_event=None,
                              on_layer_done: Optional[Callable[[int], None]] = None) -> TransferCompletion:
        with self._submission(transfers, self.host_to_device_stream, start_event) as (prepared, completion):
            for layer_id in range(layer_num):
                for t in prepared:
                    t.host_pool.load_to_device_per_layer(t.device_pool, t.host_pages, t.device_pages, layer_id)
                if on_layer_done is not None:
                    on_layer_done(layer_id)
        return completion

import logging
from collections import OrderedDict

from cuda.bindings import runtime as cudart

from .config import PeftCacheConfig
from .host_cache import HostAdapterCache
from .rt import check, new_event, new_stream

logger = logging.getLogger(__name__)


class DeviceSlotCache:
    """Fixed device slots allocated up front; least recently used adapter is evicted on a miss."""

    def __init__(self, config: PeftCacheConfig, host_cache: HostAdapterCache):
        self._config = config
        self._host = host_cache
        self._slot_ptrs = [check(cudart.cudaMalloc(config.slot_bytes)) for _ in range(config.num_device_slots)]
        self._load_stream = new_stream()
        self._slot_loaded = [new_event() for _ in range(config.num_device_slots)]
        self._slot_released = [new_event() for _ in range(config.num_device_slots)]
        self._resident: "OrderedDict[int, int]" = OrderedDict()  # adapter_id -> slot
        self._free = list(range(config.num_device_slots))

    def _pick_slot(self) -> int:
        if self._free:
            return self._free.pop()
        victim, slot = self._resident.popitem(last=False)
        logger.debug("evicting adapter %d from slot %d", victim, slot)
        return slot

    def ensure_resident(self, adapter_id: int) -> int:
        if adapter_id in self._resident:
            self._resident.move_to_end(adapter_id)
            return self._resident[adapter_id]
        slot = self._pick_slot()
        host_ptr, nbytes = self._host.get(adapter_id)
        check(cudart.cudaStreamWaitEvent(self._load_stream, self._slot_released[slot], 0))
        # expect: KVG004
        check(cudart.cudaMemcpyAsync(self._slot_ptrs[slot], host_ptr, nbytes,
                                     cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, self._load_stream))
        check(cudart.cudaEventRecord(self._slot_loaded[slot], self._load_stream))
        self._resident[adapter_id] = slot
        return slot

    def slot_ptr(self, slot: int) -> int:
        return self._slot_ptrs[slot]

    def wait_loaded(self, slot: int, stream) -> None:
        check(cudart.cudaStreamWaitEvent(stream, self._slot_loaded[slot], 0))

    def release_after(self, slot: int, stream) -> None:
        check(cudart.cudaEventRecord(self._slot_released[slot], stream))

import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Dict, List, Sequence, Tuple

import cupy
import numpy as np

from .compression import compress_host_cache
from .device import CupyDevice, allocate_pinned, load_to_device, store_to_host
from .policy import Policy

logger = logging.getLogger(__name__)

LayerFn = Callable[[cupy.ndarray, Dict[str, cupy.ndarray], cupy.ndarray, int], cupy.ndarray]


class OptLM:

    def __init__(self, layers: Sequence[LayerFn], host_weights: Sequence[Dict[str, np.ndarray]], policy: Policy,
                 device: CupyDevice, kv_shape: Tuple[int, ...], kv_dtype=np.float16):
        self.layers = list(layers)
        self.num_layers = len(self.layers)
        self.policy = policy
        self.device = device
        self.kv_shape = kv_shape
        self.kv_dtype = kv_dtype
        nb = policy.num_gpu_batches

        self.host_weights = []
        for weights in host_weights:
            pinned = {}
            for name, array in weights.items():
                pinned[name] = allocate_pinned(array.shape, array.dtype)
                pinned[name][...] = array
            self.host_weights.append(pinned)
        with device.dev:
            self.weight_slots = [{name: cupy.empty(a.shape, a.dtype) for name, a in self.host_weights[0].items()}
                                 for _ in range(2)]
            self.kv_out = [[cupy.empty(kv_shape, kv_dtype) for _ in range(nb)] for _ in range(self.num_layers)]
        self.weight_ready: List = [None, None]
        self.kv_stored: List[List] = [[None] * nb for _ in range(self.num_layers)]

        self.cache_home: Dict[Tuple[int, int, int], np.ndarray] = {}
        self.compressed: Dict[Tuple[int, int, int], Tuple[np.ndarray, np.ndarray]] = {}
        self._executor = ThreadPoolExecutor(max_workers=policy.num_cpu_workers, thread_name_prefix="flexgen-comp")
        self._pending: List[Tuple[Tuple[int, int, int], Future]] = []

    def load_weight(self, j: int, slot: int) -> None:
        stream = self.device.load_weight_stream
        stream.wait_event(self.device.record(self.device.compute_stream))
        with stream:
            for name, host in self.host_weights[j].items():
                load_to_device(self.weight_slots[slot][name], host, stream)
        self.weight_ready[slot] = self.device.record(stream)

    def compute_layer(self, i: int, j: int, k: int, slot: int, hidden: cupy.ndarray):
        compute = self.device.compute_stream
        compute.wait_event(self.weight_ready[slot])
        if self.kv_stored[j][k] is not None:
            compute.wait_event(self.kv_stored[j][k])
        with compute:
            hidden = self.layers[j](hidden, self.weight_slots[slot], self.kv_out[j][k], i)
        return hidden, self.device.record(compute)

    def store_cache(self, i: int, j: int, k: int, produced) -> None:
        if not self.policy.cpu_cache_mirror:
            return
        stream = self.device.store_cache_stream
        stream.wait_event(produced)
        slab = allocate_pinned(self.kv_shape, self.kv_dtype)
        self.cache_home[(i, j, k)] = slab
        with stream:
            store_to_host(self.kv_out[j][k], slab, stream)
        self.kv_stored[j][k] = self.device.record(stream)
        if self.policy.compress_cache:
            future = self._executor.submit(compress_host_cache, slab, self.policy.comp_cache_config,
                                           self.kv_stored[j][k])
            self._pending.append(((i, j, k), future))

    def sync(self) -> None:
        self.device.store_cache_stream.synchronize()
        for key, future in self._pending:
            self.compressed[key] = future.result()
            del self.cache_home[key]
        self._pending.clear()

    def generation_loop(self, hidden: List[cupy.ndarray], gen_len: int) -> List[cupy.ndarray]:
        t = 0
        self.load_weight(0, 0)
        for i in range(gen_len):
            for j in range(self.num_layers):
                slot = t % 2
                self.load_weight((j + 1) % self.num_layers, (t + 1) % 2)
                for k in range(self.policy.num_gpu_batches):
                    hidden[k], produced = self.compute_layer(i, j, k, slot, hidden[k])
                    self.store_cache(i, j, k, produced)
                t += 1
            self.sync()
            logger.debug("generation step %d done, %d compressed slabs", i, len(self.compressed))
        self.device.compute_stream.synchronize()
        return hidden

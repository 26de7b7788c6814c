import logging
from typing import List

from numba import cuda

logger = logging.getLogger(__name__)


class NumbaMHATokenToKVPoolHost:
    def __init__(self, device_pool, num_pages: int):
        self.layer_num = device_pool.layer_num
        self.num_pages = num_pages
        shape = (
            self.layer_num,
            num_pages,
            device_pool.page_size,
            device_pool.head_num,
            device_pool.head_dim,
        )
        self.k_host = cuda.pinned_array(shape, dtype=device_pool.dtype)
        self.v_host = cuda.pinned_array(shape, dtype=device_pool.dtype)
        logger.info("Host KV pool: %d pages, %.2f GB", num_pages, 2 * self.k_host.nbytes / 1e9)

    def load_to_device_per_layer(self, device_pool, host_pages: List[int],
                                 device_pages: List[int], layer_id: int, stream) -> None:
        k_dev = device_pool.k_buffer[layer_id]
        v_dev = device_pool.v_buffer[layer_id]
        for hp, dp in zip(host_pages, device_pages):
            # expect: KVG004
            k_dev[dp].copy_to_device(self.k_host[layer_id, hp], stream=stream)
            # expect: KVG004
            cuda.to_device(self.v_host[layer_id, hp], stream=stream, to=v_dev[dp])

    def load_to_device_all_layer(self, device_pool, host_pages: List[int],
                                 device_pages: List[int], stream) -> None:
        for layer_id in range(self.layer_num):
            self.load_to_device_per_layer(device_pool, host_pages, device_pages, layer_id, stream)

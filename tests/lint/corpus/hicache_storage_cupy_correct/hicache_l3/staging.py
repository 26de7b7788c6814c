import cupy
import cupyx
import numpy as np


class PinnedStagingBuffer:
    def __init__(self, num_pages: int, page_shape, dtype=np.float16):
        self.page_shape = tuple(page_shape)
        self.pages = [cupyx.empty_pinned(self.page_shape, dtype=dtype) for _ in range(num_pages)]
        self._cursor = 0

    def next_page(self) -> np.ndarray:
        page = self.pages[self._cursor]
        self._cursor = (self._cursor + 1) % len(self.pages)
        return page


def page_view(kv_buffer: cupy.ndarray, page_index: int, page_size: int) -> cupy.ndarray:
    start = page_index * page_size
    return kv_buffer[:, :, start:start + page_size]

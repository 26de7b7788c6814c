"""Device KV pool and its page allocator, in the shape of SGLang's MHATokenToKVPool and
PagedTokenToKVPoolAllocator (pages of ``page_size`` consecutive token slots)."""

import torch


class MHATokenToKVPool:
    def __init__(self, num_pages, page_size, head_num, head_dim, layer_num, dtype=torch.float16):
        self.page_size = page_size
        self.layer_num = layer_num
        shape = (num_pages * page_size, head_num, head_dim)
        self.k_buffer = [torch.zeros(shape, dtype=dtype, device="cuda") for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(shape, dtype=dtype, device="cuda") for _ in range(layer_num)]


class PagedAllocator:
    def __init__(self, num_pages):
        self.free_pages = list(range(1, num_pages))

    def alloc(self, num):
        if num > len(self.free_pages):
            return None
        pages, self.free_pages = self.free_pages[:num], self.free_pages[num:]
        return pages

    def free(self, pages):
        # the pages may still be read by kernels of the batch in flight
        self.free_pages.extend(pages)

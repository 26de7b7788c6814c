"""Device KV pages and the kernel that appends a token's K/V to a page."""

import cupy

_append_kv = cupy.ElementwiseKernel(
    "raw T src, int32 page, int32 pos, int32 page_elems, int32 token_elems",
    "raw T pages",
    "pages[page * page_elems + pos * token_elems + i] = src[i]",
    "append_kv",
)


class DevicePagePool:
    def __init__(self, num_pages, page_shape, dtype):
        self.data = cupy.zeros((num_pages,) + tuple(page_shape), dtype=dtype)
        self.page_elems = self.data[0].size
        self.page_bytes = self.data[0].nbytes
        self.free = list(range(num_pages))

    def page_ptr(self, page):
        return self.data.data.ptr + page * self.page_bytes

    def alloc(self, n):
        taken, self.free = self.free[:n], self.free[n:]
        return taken

    def release(self, pages):
        # kernels queued on the current stream may still read pages given back here
        self.free.extend(pages)

    def append(self, page, pos, kv_token):
        _append_kv(kv_token, page, pos, self.page_elems, kv_token.size, self.data, size=kv_token.size)

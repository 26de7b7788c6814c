"""Swaps whole requests' pages between the device pool and the host arena on a side stream."""
import cupy as cp

_rt = cp.cuda.runtime


class PageSwapper:
    def __init__(self, pool, arena, compute):
        self.pool = pool
        self.arena = arena
        self.compute = compute
        self.stream = cp.cuda.Stream(non_blocking=True)
        # the compute stream's progress as of the last step boundary
        self._fence = cp.cuda.Event(disable_timing=True)

    def mark_step(self):
        """Called by the engine at each step boundary."""
        self._fence.record(self.compute)

    def swap_out(self, pages):
        """Copy `pages` to host slots and give them back to the pool. Returns the slots."""
        slots = [self.arena.free.pop() for _ in pages]
        self.stream.wait_event(self._fence)
        for page, slot in zip(pages, slots):
            # expect: KVG001
            _rt.memcpyAsync(self.arena.slot_ptr(slot), self.pool.page_ptr(page),
                            self.pool.page_bytes, _rt.memcpyDeviceToHost, self.stream.ptr)
        # the pages go back to the free list: appends into them must follow the copies
        self.compute.wait_event(self.stream.record())
        self.pool.free.extend(pages)
        return slots

    def swap_in(self, slots):
        """Bring host slots back into free device pages. Returns the pages."""
        pages = [self.pool.free.popleft() for _ in slots]
        # freed pages may still be read by attention kernels queued on the compute stream
        self.stream.wait_event(self.compute.record())
        for page, slot in zip(pages, slots):
            _rt.memcpyAsync(self.pool.page_ptr(page), self.arena.slot_ptr(slot),
                            self.pool.page_bytes, _rt.memcpyHostToDevice, self.stream.ptr)
        self.compute.wait_event(self.stream.record())
        self.arena.free.extend(slots)
        return pages

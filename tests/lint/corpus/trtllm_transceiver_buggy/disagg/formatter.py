from typing import List, Tuple

from disagg import cudart


class CacheFormatter:
    """Packs the KV blocks of one request into a contiguous host buffer, coalescing adjacent blocks."""

    @staticmethod
    def coalesce(block_ptrs: List[int], block_bytes: int) -> List[Tuple[int, int]]:
        runs: List[Tuple[int, int]] = []
        for ptr in block_ptrs:
            if runs and runs[-1][0] + runs[-1][1] == ptr:
                runs[-1] = (runs[-1][0], runs[-1][1] + block_bytes)
            else:
                runs.append((ptr, block_bytes))
        return runs

    def format(self, block_ptrs: List[int], block_bytes: int, dst_ptr: int, capacity: int, stream: int) -> int:
        offset = 0
        for src, nbytes in self.coalesce(block_ptrs, block_bytes):
            if offset + nbytes > capacity:
                raise ValueError(f"KV cache of {len(block_ptrs)} blocks exceeds transfer buffer ({capacity} bytes)")
            cudart.memcpy_async(dst_ptr + offset, src, nbytes, cudart.cudaMemcpyDeviceToHost, stream)
            offset += nbytes
        return offset

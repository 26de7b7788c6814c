"""Fixed-size list slots in one memory tier."""
import cupy
import cupyx


class Tier:
    """``num_slots`` slots of ``slot_rows`` x ``dim`` float16 vectors."""

    name = "tier"
    is_host = False

    def __init__(self, num_slots: int, slot_rows: int, dim: int):
        self.num_slots = num_slots
        self.slot_rows = slot_rows
        self.dim = dim
        self.slot_bytes = slot_rows * dim * 2
        self.free = list(range(num_slots - 1, -1, -1))

    @property
    def base_ptr(self) -> int:
        raise NotImplementedError

    def ptr(self, slot: int) -> int:
        return self.base_ptr + slot * self.slot_bytes

    def take(self) -> int:
        if not self.free:
            raise MemoryError(f"{self.name}: no free list slot")
        return self.free.pop()

    def give(self, slot: int) -> None:
        self.free.append(slot)


class DeviceTier(Tier):
    name = "gpu"
    is_host = False

    def __init__(self, num_slots: int, slot_rows: int, dim: int):
        super().__init__(num_slots, slot_rows, dim)
        self.vectors = cupy.zeros((num_slots, slot_rows, dim), dtype=cupy.float16)

    @property
    def base_ptr(self) -> int:
        return self.vectors.data.ptr


class PinnedTier(Tier):
    name = "pinned"
    is_host = True

    def __init__(self, num_slots: int, slot_rows: int, dim: int):
        super().__init__(num_slots, slot_rows, dim)
        self.vectors = cupyx.empty_pinned((num_slots, slot_rows, dim), dtype="float16")

    @property
    def base_ptr(self) -> int:
        return self.vectors.ctypes.data

# SPDX-License-Identifier: Apache-2.0
import enum


class Direction(enum.Enum):
    GPU_TO_CPU = "gpu->cpu"
    CPU_TO_GPU = "cpu->gpu"


# cudaMemcpySrcAccessOrder
SRC_ORDER_STREAM = 1
SRC_ORDER_DURING_API_CALL = 2
SRC_ORDER_ANY = 3

# CPU blocks are only read once their store has completed, so loads may let
# the driver read the pinned source whenever it likes.
SRC_ACCESS_ORDER = {
    Direction.GPU_TO_CPU: SRC_ORDER_DURING_API_CALL,
    Direction.CPU_TO_GPU: SRC_ORDER_ANY,
}

DEFAULT_BLOCK_SIZE = 16
COPY_THREAD_NAME = "kvtier-copy"

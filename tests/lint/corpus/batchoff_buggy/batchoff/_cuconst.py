# SPDX-License-Identifier: Apache-2.0
import enum

from cuda.bindings import driver

BATCH_MEMCPY_MIN_DRIVER = 12080
CUDA_MEMCPY_HOST_TO_DEVICE = 1
CUDA_MEMCPY_DEVICE_TO_HOST = 2


class Direction(enum.Enum):
    STORE = "gpu->cpu"
    LOAD = "cpu->gpu"


SRC_ORDER = {
    Direction.STORE: driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
    Direction.LOAD: driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
}

LOCATION = {
    Direction.STORE: (driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE,
                      driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST),
    Direction.LOAD: (driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST,
                     driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE),
}

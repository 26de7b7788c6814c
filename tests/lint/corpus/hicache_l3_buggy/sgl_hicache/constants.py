from cuda.bindings import driver

PAGE_SIZE = 64
STORAGE_BATCH_SIZE = 128
HOST_TO_DEVICE_RATIO = 2.0
BACKUP_POLL_TIMEOUT_S = 1.0

# Source access order used by the L2 batch copy engine for device -> host backup.
D2H_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY

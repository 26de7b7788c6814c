from cuda.bindings import driver

# Source access order used for each transfer direction.
OFFLOAD_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
ONBOARD_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM

MIN_DRIVER_VERSION = 12080
STREAM_FLAGS = driver.CUstream_flags.CU_STREAM_NON_BLOCKING
EVENT_FLAGS = driver.CUevent_flags.CU_EVENT_DISABLE_TIMING

"""aio / swap configuration (mirrors the `aio` and `offload_param` sections)."""

AIO_BLOCK_SIZE = 1048576
AIO_QUEUE_DEPTH = 8
AIO_THREAD_COUNT = 1
AIO_SINGLE_SUBMIT = False
AIO_OVERLAP_EVENTS = True

OFFLOAD_PARAM_BUFFER_COUNT = 5
SWAP_FILE_SUFFIX = "_param.tensor.swp"

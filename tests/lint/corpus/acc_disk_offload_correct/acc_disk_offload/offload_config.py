"""Settings for the stateful-buffer disk offload hooks."""

OFFLOAD_FOLDER = "./offload"
INDEX_FILE = "index.json"
PIN_MEMORY = True
OFFLOAD_STREAM_NAME = "offload"
OFFLOAD_STREAM_PRIORITY = 0
WRITER_QUEUE_DEPTH = 16
WRITER_JOIN_TIMEOUT_S = 30.0

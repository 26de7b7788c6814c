import struct

RECORD_MAGIC = 0x4D4F4D31  # "MOM1"
RECORD_HEADER = struct.Struct("<IQII")  # magic, batch_id, rows, cols
NUM_MOMENTS = 2
WRITER_THREADS = 1
PINNED_POOL_LIMIT = 1 << 30

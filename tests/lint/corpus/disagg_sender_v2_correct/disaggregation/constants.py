# wire format of a context->generation KV block transfer
HEADER_MAGIC = 0x4B56_4331
HEADER_FORMAT = "<IQIII"  # magic, request id, num blocks, block bytes, crc32

DEFAULT_SENDER_THREADS = 4
SEND_TIMEOUT_S = 30.0

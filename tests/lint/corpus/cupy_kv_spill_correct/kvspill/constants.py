import numpy

BLOCK_TOKENS = 64
KV_DTYPE = numpy.float16
SPILL_SUFFIX = ".kvblk"
DIGEST_SIZE = 16
IO_THREAD_PREFIX = "kv-spill"

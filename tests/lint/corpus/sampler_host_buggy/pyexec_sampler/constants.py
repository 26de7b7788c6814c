"""Sizes and indices shared by the sampler and the executor loop."""

BEAM = 0
MAX_BEAM_WIDTH = 1
DEFAULT_MAX_NUM_SEQUENCES = 256
LOGPROB_DTYPE_NAME = "float32"
TOKEN_DTYPE_NAME = "int64"

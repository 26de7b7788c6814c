"""Static limits shared by the overlap executor and the sampler."""

MAX_NUM_SEQUENCES = 256
MAX_BEAM_WIDTH = 1
RESPONSE_QUEUE_DEPTH = 4
HOST_COPY_STREAM_PRIORITY = -1
HOST_COPY_FIELDS = ("new_tokens", "new_tokens_lens")

"""Static sizing for the dynamic batching context."""

MAX_REQUESTS = 256
MAX_SEQUENCE_LENGTH = 4096
TERMINATION_ID = 2
PAD_REQUEST_ID = -1

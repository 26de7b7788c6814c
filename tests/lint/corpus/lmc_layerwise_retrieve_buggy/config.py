"""Layer-wise retrieval knobs."""

# Number of GPU staging slots cycled through by the load stream. Two slots let
# layer i+1 load while layer i is being scattered into the paged cache.
NUM_STAGING_SLOTS = 2
MAX_RETRIEVE_TOKENS = 8192
CHUNK_SIZE = 256

"""Worker half of an out-of-tree offloading spec for vLLM's OffloadingConnector: a GPU -> CPU
and a CPU -> GPU handler sharing one transfer template, plus an opt-in store verifier that
compares every completed store against its GPU source."""

"""A small HF-model server: each generation runs on its own compute stream and finished
sequences are spilled to pinned host memory by an offload cache."""

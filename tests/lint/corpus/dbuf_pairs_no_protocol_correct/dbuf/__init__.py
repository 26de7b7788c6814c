"""Double-buffered model inputs: two host/device pairs, one loaded while the other computes."""

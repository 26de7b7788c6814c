"""ZeRO-Inference-style layer streaming: every layer's weights live in one pinned host flat
buffer; a ring of device flat buffers holds the layer being computed and the ones prefetched
after it, filled on a prefetch stream."""

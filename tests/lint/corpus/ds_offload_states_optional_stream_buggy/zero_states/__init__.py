"""``offload_states`` / ``reload_states`` for a ZeRO stage-1 style optimizer, in the shape of
DeepSpeed's API: between training steps of an RLHF loop the fp32 partitions and Adam moments
leave the GPU for pinned host buffers, so generation can use the memory."""

"""``offload_states`` / ``reload_states`` for a ZeRO-3 optimizer, in the shape of DeepSpeed's
``runtime/zero/offload_states.py`` and the stage-3 optimizer methods that use it: the fp32
partitions, the Adam moments and the low-precision parameter buffer move to (pinned) host
memory between RL phases, either on the compute stream or overlapped on a side stream."""

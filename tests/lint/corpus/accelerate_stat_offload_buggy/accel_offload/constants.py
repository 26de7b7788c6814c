HOOK_ATTR = "_hf_hook"
OLD_FORWARD_ATTR = "_old_forward"

# Buffers that the forward pass updates in place and that must be written back
# to the offloaded weights map after every call.
STATEFUL_BUFFER_SUFFIXES = ("running_mean", "running_var", "num_batches_tracked", "amax_history", "scale")

"""Fine-grained activation offloading in the shape of megatron-core's
pipeline_parallel/fine_grained_activation_offload.py, with one change: reloaded activations
land in two static device slots per module group (consecutive layers alternate between them)
instead of fresh allocations, so that captured backward graphs see fixed addresses."""

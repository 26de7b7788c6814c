"""In-flight weight updates for asynchronous RL rollouts, in the shape of Megatron-core RL
with partial rollouts: the trainer publishes new policy weights while the rollout engine keeps
decoding, and between two decode steps the engine pulls them into pinned host buffers and
loads them into its parameters on a refit stream made current with ``torch.cuda.set_stream``.
The engine schedules with overlap: step s+1 is already queued when the host reads the tokens
of step s and checks for an update."""

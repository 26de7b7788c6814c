"""swap_tier: a vLLM KV connector that swaps the KV blocks of finished requests out to a
pinned CPU tier and swaps them back in on a prefix hit, from a single swap worker thread
so that the per-block copy launches never sit on the model runner's critical path."""

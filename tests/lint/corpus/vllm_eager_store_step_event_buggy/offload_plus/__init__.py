"""offload_plus: a fork of vLLM's OffloadingConnector (GPU <-> CPU KV offload).

Specs register themselves by name (``OffloadingSpec.__init_subclass__``) and build the
transfer handlers; the connector worker routes every job to the handler of its
(source medium, destination medium) pair. As upstream, stores of the blocks a step wrote
are deferred to the start of the next step; the fork adds an ``eager_store`` mode that
submits them from ``wait_for_save`` so that finished requests free their GPU blocks one
step earlier."""

"""Layer-by-layer weight streaming for a decoder that does not fit on the device, in the shape of
accelerate's ``cpu_offload`` / diffusers' ``enable_group_offload(use_stream=True)``: every
decoder layer's weights live in one pinned host buffer; two device slots hold the layer being run
and the next one. Module hooks drive it: a layer's forward pre-hook waits for its own load, binds
its parameters to views of its slot and starts loading the next layer into the other slot on a
side stream. The load into a slot waits on a "slot free" event of the layer that last used it.

Bug: that event is recorded in the *pre*-hook, when the layer takes the slot, i.e. before any of
its kernels are queued. With two slots, the load of layer i+1 (started in layer i's pre-hook)
waits only for work queued before layer i-1 started, so it can overwrite layer i-1's weights while
layer i-1's GEMMs still read them (KVG004).
"""

# Copyright 2022 The HuggingFace Team. All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");

from .hooks import AlignDevicesHook, ModelHook, add_hook_to_module, attach_streamed_align_hooks
from .offload import OffloadedWeightsLoader
from .streaming import CupyWeightStreamer

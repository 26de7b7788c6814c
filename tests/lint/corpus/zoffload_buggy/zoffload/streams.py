# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from deepspeed.accelerator import get_accelerator

copy_stream = None
offload_event = None
reload_event = None


def lazy_init():
    global copy_stream
    global offload_event
    global reload_event

    if copy_stream is None:
        copy_stream = get_accelerator().Stream()
        offload_event = get_accelerator().Event()
        reload_event = get_accelerator().Event()

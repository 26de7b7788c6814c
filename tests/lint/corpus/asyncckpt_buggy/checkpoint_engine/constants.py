# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
CHECKPOINT_WRITER_THREAD = "ds_ckpt_writer"
CHECKPOINT_QUEUE_DEPTH = 2
TMP_SUFFIX = ".tmp"
SHUTDOWN = None

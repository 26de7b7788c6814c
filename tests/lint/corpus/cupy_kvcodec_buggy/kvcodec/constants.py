# SPDX-License-Identifier: Apache-2.0
QUANT_MAX = 127.0
SCALE_EPS = 1e-8
FILE_MAGIC = b"LMCQ"
HEADER_FMT = "<4sIII"  # magic, rows, hidden, key length
WRITER_QUEUE_DEPTH = 16

# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""One module per input format; `inputs.load_run` picks the reader."""

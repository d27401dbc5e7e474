# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""pnmpi-report's package: readers of the monitor's files and the subcommands."""

# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Writing output files whole: a temporary file in the target directory, renamed over the
final name, so a reader never sees half a picture or rankfile."""

import os
import tempfile

from .errors import ReportError


def write_atomic(path, data):
    """data: bytes or str (UTF-8)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ReportError("cannot write: directory %s does not exist" % directory, path)
    if os.path.isdir(path):
        raise ReportError("cannot write: it is a directory", path)
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                                   suffix=".tmp")
    except OSError as e:
        raise ReportError("cannot write: %s" % e.strerror, path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise ReportError("cannot write: %s" % e.strerror, path)


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask

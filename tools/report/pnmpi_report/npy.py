# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Reading one `.npy` array fast. numpy's reader re-tokenizes every version 1 and 2 header
(for headers Python 2 may have written), which is half the time of reading a small job
record; `pnmpi-report site` reads thousands. The headers numpy and the profile module
write are parsed here directly; anything else goes to numpy's reader, which also gives
the error for a damaged one."""

import io
import re
import struct

import numpy as np

_MAGIC = b"\x93NUMPY"
_HEADER = re.compile(r"\{'descr': '([<>|=]?[a-zA-Z][0-9]*)', 'fortran_order': False, "
                     r"'shape': \(((?:[0-9]+, ?)*[0-9]*)\), *\} *\n?\Z")


def read_array(data):
    """The array in `data` (the bytes of an .npy file); ValueError when it is damaged."""
    fast = _fast(data)
    if fast is not None:
        return fast
    return np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)


def _fast(data):
    if len(data) < 10 or data[:6] != _MAGIC or data[6] not in (1, 2, 3):
        return None
    if data[6] == 1:
        size, start = struct.unpack_from("<H", data, 8)[0], 10
    else:
        if len(data) < 12:
            return None
        size, start = struct.unpack_from("<I", data, 8)[0], 12
    end = start + size
    if end > len(data) or size > 65536:
        return None
    try:
        m = _HEADER.match(data[start:end].decode("latin1"))
    except UnicodeDecodeError:
        return None
    if m is None:
        return None
    try:
        dtype = np.dtype(m.group(1))
    except TypeError:
        return None
    if dtype.hasobject:
        return None
    shape = tuple(int(x) for x in m.group(2).replace(" ", "").split(",") if x)
    count = 1
    for n in shape:
        count *= n
    if len(data) - end != count * dtype.itemsize:
        return None  # numpy's reader says what is wrong
    return np.frombuffer(data, dtype=dtype, count=count, offset=end).reshape(shape).copy()

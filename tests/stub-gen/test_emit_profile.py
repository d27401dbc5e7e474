# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""emit_profile.py: which (count, datatype) pair gives a routine's bytes, the data file's
exceptions and its errors."""

import unittest

import support  # noqa: F401  (puts stub-gen on sys.path)
import emit_profile
from model import Param, Routine, StubGenError


def routine(name, *decls):
    params = [Param(d, d.replace("[]", "").split()[-1].lstrip("*")) for d in decls]
    return Routine(name=name, return_type="int", params=params, varargs=False, header="mpi.h",
                   line=1, id=0)


SEND = routine("MPI_Send", "const void *buf", "int count", "MPI_Datatype datatype", "int dest",
               "int tag", "MPI_Comm comm")
ALLGATHER = routine("MPI_Allgather", "const void *sendbuf", "int sendcount",
                    "MPI_Datatype sendtype", "void *recvbuf", "int recvcount",
                    "MPI_Datatype recvtype", "MPI_Comm comm")
CONTIG = routine("MPI_Type_contiguous", "int count", "MPI_Datatype oldtype",
                 "MPI_Datatype *newtype")
ALLTOALLV = routine("MPI_Alltoallv", "const void *sendbuf", "const int sendcounts[]",
                    "const int sdispls[]", "MPI_Datatype sendtype", "void *recvbuf",
                    "const int recvcounts[]", "const int rdispls[]", "MPI_Datatype recvtype",
                    "MPI_Comm comm")
SEND_C = routine("MPI_Send_c", "const void *buf", "MPI_Count count", "MPI_Datatype datatype",
                 "int dest", "int tag", "MPI_Comm comm")


class Bytes(unittest.TestCase):
    def test_pairs(self):
        self.assertEqual(emit_profile.bytes_expr(SEND, None), "profile_volume(count, datatype)")
        self.assertEqual(emit_profile.bytes_expr(SEND_C, None),
                         "profile_volume(count, datatype)")
        self.assertEqual(emit_profile.bytes_expr(ALLGATHER, None),
                         "(sendbuf == MPI_IN_PLACE ? profile_volume(recvcount, recvtype) : "
                         "profile_volume(sendcount, sendtype))")
        self.assertEqual(emit_profile.bytes_expr(CONTIG, None), "0")
        self.assertEqual(emit_profile.bytes_expr(ALLTOALLV, None), "0")
        self.assertEqual(emit_profile.comm_arg(SEND), "comm")
        self.assertEqual(emit_profile.comm_arg(CONTIG), "MPI_COMM_NULL")

    def test_data_file(self):
        with open(emit_profile.DATA) as f:
            entries = emit_profile.parse_data(f.read(), emit_profile.DATA)
        scatter = routine("MPI_Scatter", "const void *sendbuf", "int sendcount",
                          "MPI_Datatype sendtype", "void *recvbuf", "int recvcount",
                          "MPI_Datatype recvtype", "int root", "MPI_Comm comm")
        self.assertEqual(emit_profile.bytes_expr(scatter, entries["MPI_Scatter"]),
                         "profile_volume(recvcount, recvtype)")
        self.assertEqual(entries["MPI_Abort"].before, ["profile_abort(errorcode)"])
        code = emit_profile.emit_routine(SEND, None)
        self.assertIn("const int pnmpi_app = profile_from_application(PNMPI_ID_MPI_Send);", code)
        self.assertIn("int pnmpi_rc = PMPI_Send(buf, count, datatype, dest, tag, comm);", code)

    def test_data_errors(self):
        for text, message in (
                ("routine MPI_X\n  bytes a\n  reason r\n", ":2: 'bytes' needs COUNT TYPE or none"),
                ("routine MPI_X\n  frob y\n  reason r\n", ":2: unknown directive 'frob'"),
                ("routine MPI_X\n  bytes none\n", ":1: routine MPI_X: missing 'reason'"),
                ("  bytes none\n", ":1: directive 'bytes' outside a 'routine' block"),
                ("routine MPI_X\n  reason r\nroutine MPI_X\n  reason r\n",
                 ":3: routine MPI_X is listed twice")):
            with self.assertRaises(StubGenError) as cm:
                emit_profile.parse_data(text, "profile.txt")
            self.assertIn("profile.txt" + message, str(cm.exception))
        entry = emit_profile.parse_data("routine MPI_Send\n  bytes n datatype\n  reason r\n",
                                        "p")["MPI_Send"]
        with self.assertRaises(StubGenError) as cm:
            emit_profile.bytes_expr(SEND, entry)
        self.assertIn("routine MPI_Send has no parameter n", str(cm.exception))


if __name__ == "__main__":
    unittest.main()

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The global definitions rank 0 writes at MPI_Finalize (definitions.h).

#include "definitions.h"

#include <algorithm>

namespace pnmpi::trace {

namespace {

class Strings {
public:
  OTF2_StringRef operator()(const std::string &s) {
    auto it = m_ids.find(s);
    if (it != m_ids.end())
      return it->second;
    const auto id = static_cast<OTF2_StringRef>(m_list.size());
    m_list.push_back(s);
    m_ids.emplace(s, id);
    return id;
  }
  void write(OTF2_GlobalDefWriter *w) const {
    for (std::size_t i = 0; i < m_list.size(); ++i)
      OTF2_GlobalDefWriter_WriteString(w, static_cast<OTF2_StringRef>(i), m_list[i].c_str());
  }

private:
  std::vector<std::string> m_list;
  std::map<std::string, OTF2_StringRef> m_ids;
};

const char *comm_name(const CommKey &key, int size, std::string &buf, std::size_t index) {
  if (key.inter()) {
    buf = "intercomm " + std::to_string(index);
    return buf.c_str();
  }
  bool world = key.ordinal == 0 && static_cast<int>(key.a.size()) == size;
  for (std::size_t i = 0; world && i < key.a.size(); ++i)
    world = key.a[i] == static_cast<int>(i);
  if (world)
    return "MPI_COMM_WORLD";
  if (key.ordinal == 0 && key.a.size() == 1 && size > 1)
    return "MPI_COMM_SELF";
  buf = "comm " + std::to_string(index);
  return buf.c_str();
}

} // namespace

GlobalIds Unifier::add(const RankDefs &d) {
  GlobalIds ids;
  for (const auto &key : d.comms) {
    auto ins = comm_ids.emplace(key, static_cast<std::uint32_t>(comm_keys.size()));
    if (ins.second)
      comm_keys.push_back(key);
    ids.comm.push_back(ins.first->second);
  }
  for (std::size_t i = 0; i < d.wins.size(); ++i) {
    auto ins = win_ids.emplace(d.wins[i], static_cast<std::uint32_t>(win_comm.size()));
    if (ins.second) {
      const long c = d.win_comm[i];
      win_comm.push_back(c >= 0 ? static_cast<std::uint32_t>(ids.comm[static_cast<std::size_t>(c)])
                                : OTF2_UNDEFINED_COMM);
    }
    ids.win.push_back(ins.first->second);
  }
  for (std::size_t i = 0; i < d.file_paths.size(); ++i) {
    auto ins = file_ids.emplace(d.file_paths[i], static_cast<std::uint32_t>(file_paths.size()));
    if (ins.second)
      file_paths.push_back(d.file_paths[i]);
    const long c = d.file_comm[i];
    ids.handle.push_back(handles.size());
    handles.push_back(
        {ins.first->second, c >= 0 ? ids.comm[static_cast<std::size_t>(c)] : OTF2_UNDEFINED_COMM});
  }
  return ids;
}

void write_global_defs(OTF2_GlobalDefWriter *w, const Unifier &u,
                       const std::vector<RankDefs> &ranks, std::uint64_t first,
                       std::uint64_t last) {
  Strings s;
  std::vector<std::string> host_list;
  std::vector<std::uint32_t> host_of(static_cast<std::size_t>(g.size));
  for (int r = 0; r < g.size; ++r) {
    const std::string &h = hosts()[static_cast<std::size_t>(r)];
    auto it = std::find(host_list.begin(), host_list.end(), h);
    host_of[static_cast<std::size_t>(r)] = static_cast<std::uint32_t>(it - host_list.begin());
    if (it == host_list.end())
      host_list.push_back(h);
  }
  // Every string is interned first: OTF2 wants them defined before they are used.
  const OTF2_StringRef empty = s(""), machine = s("machine"), node = s("node"), mpi = s("MPI");
  std::vector<OTF2_StringRef> host_names, rank_names, region_names;
  for (const std::string &h : host_list)
    host_names.push_back(s(h));
  for (int r = 0; r < g.size; ++r)
    rank_names.push_back(s("MPI Rank " + std::to_string(r)));
  for (int r = 0; r < kRoutineCount; ++r)
    region_names.push_back(s(kRoutines[r].name));
  std::vector<std::vector<OTF2_StringRef>> location_names(static_cast<std::size_t>(g.size));
  for (int r = 0; r < g.size; ++r)
    for (std::size_t t = 0; t < ranks[static_cast<std::size_t>(r)].events.size(); ++t)
      location_names[static_cast<std::size_t>(r)].push_back(
          s(t == 0 ? "Master thread" : "Thread " + std::to_string(t)));
  std::vector<OTF2_StringRef> comm_names, file_names, win_names;
  for (std::size_t c = 0; c < u.comm_keys.size(); ++c) {
    std::string buf;
    comm_names.push_back(s(comm_name(u.comm_keys[c], g.size, buf, c)));
  }
  for (std::size_t wi = 0; wi < u.win_comm.size(); ++wi)
    win_names.push_back(s("window " + std::to_string(wi)));
  for (const std::string &p : u.file_paths)
    file_names.push_back(s(p));
  const OTF2_StringRef mpi_io = s("MPI-IO"), mpi_io_name = s("MPI I/O");
  const OTF2_StringRef a_origin = s("pnmpi::origin"),
                       d_origin = s("1: a module above the trace made this call (call origin)");
  const OTF2_StringRef a_offset = s("MPI-IO::offset"),
                       d_offset = s("byte offset in the file of the operation's first byte");
  const OTF2_StringRef a_disp = s("MPI-IO::displacement"), d_disp = s("the view's displacement");
  const OTF2_StringRef a_etype = s("MPI-IO::etype_size"), d_etype = s("bytes in the view's etype");
  const OTF2_StringRef a_ftype = s("MPI-IO::filetype_size"),
                       d_ftype = s("bytes of data in one filetype");
  s.write(w);

  OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000ull, first, last - first + 1,
                                            OTF2_UNDEFINED_TIMESTAMP);
  OTF2_GlobalDefWriter_WriteParadigm(w, OTF2_PARADIGM_MPI, mpi, OTF2_PARADIGM_CLASS_PROCESS);
  OTF2_GlobalDefWriter_WriteAttribute(w, kAttrOrigin, a_origin, d_origin, OTF2_TYPE_UINT8);
  OTF2_GlobalDefWriter_WriteAttribute(w, kAttrOffset, a_offset, d_offset, OTF2_TYPE_UINT64);
  OTF2_GlobalDefWriter_WriteAttribute(w, kAttrDisplacement, a_disp, d_disp, OTF2_TYPE_UINT64);
  OTF2_GlobalDefWriter_WriteAttribute(w, kAttrEtype, a_etype, d_etype, OTF2_TYPE_UINT64);
  OTF2_GlobalDefWriter_WriteAttribute(w, kAttrFiletype, a_ftype, d_ftype, OTF2_TYPE_UINT64);

  OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, machine, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (std::size_t h = 0; h < host_list.size(); ++h)
    OTF2_GlobalDefWriter_WriteSystemTreeNode(w, static_cast<OTF2_SystemTreeNodeRef>(h + 1),
                                             host_names[h], node, 0);
  for (int r = 0; r < g.size; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    OTF2_GlobalDefWriter_WriteLocationGroup(w, static_cast<OTF2_LocationGroupRef>(r),
                                            rank_names[ur], OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                            host_of[ur] + 1, OTF2_UNDEFINED_LOCATION_GROUP);
    for (std::size_t t = 0; t < ranks[ur].events.size(); ++t)
      OTF2_GlobalDefWriter_WriteLocation(w, location_id(r, static_cast<std::uint32_t>(t)),
                                         location_names[ur][t], OTF2_LOCATION_TYPE_CPU_THREAD,
                                         ranks[ur].events[t],
                                         static_cast<OTF2_LocationGroupRef>(r));
  }
  for (int r = 0; r < kRoutineCount; ++r)
    OTF2_GlobalDefWriter_WriteRegion(
        w, static_cast<OTF2_RegionRef>(r), region_names[static_cast<std::size_t>(r)],
        region_names[static_cast<std::size_t>(r)], empty,
        kRoutines[r].cls == kClassIo ? OTF2_REGION_ROLE_FILE_IO : OTF2_REGION_ROLE_FUNCTION,
        OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, empty, 0, 0);

  // Group 0 lists the ranks' master threads; a communicator's group lists world ranks,
  // which index group 0.
  std::vector<std::uint64_t> members;
  for (int r = 0; r < g.size; ++r)
    members.push_back(location_id(r, 0));
  OTF2_GlobalDefWriter_WriteGroup(w, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(members.size()),
                                  members.data());
  // An inter-communicator is written as a communicator of the union of its groups (the
  // lesser first), its events' peers and roots translated to ranks of that union: OTF2 3.0
  // has InterComm definitions, but Debian's Python OTF2 bindings (3.0.2), which
  // pnmpi-report reads with, cannot read them (their InterComm takes Comm's fields too).
  for (std::size_t c = 0; c < u.comm_keys.size(); ++c) {
    const CommKey &key = u.comm_keys[c];
    std::vector<std::uint64_t> m(key.a.begin(), key.a.end());
    m.insert(m.end(), key.b.begin(), key.b.end());
    OTF2_GlobalDefWriter_WriteGroup(
        w, static_cast<OTF2_GroupRef>(c + 1), empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
        OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(m.size()), m.data());
    OTF2_GlobalDefWriter_WriteComm(w, static_cast<OTF2_CommRef>(c), comm_names[c],
                                   static_cast<OTF2_GroupRef>(c + 1), OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
  }
  for (std::size_t wi = 0; wi < u.win_comm.size(); ++wi)
    OTF2_GlobalDefWriter_WriteRmaWin(w, static_cast<OTF2_RmaWinRef>(wi), win_names[wi],
                                     u.win_comm[wi], OTF2_RMA_WIN_FLAG_NONE);
  OTF2_GlobalDefWriter_WriteIoParadigm(w, kMpiIo, mpi_io, mpi_io_name,
                                       OTF2_IO_PARADIGM_CLASS_PARALLEL, OTF2_IO_PARADIGM_FLAG_NONE,
                                       0, nullptr, nullptr, nullptr);
  for (std::size_t f = 0; f < u.file_paths.size(); ++f)
    OTF2_GlobalDefWriter_WriteIoRegularFile(w, static_cast<OTF2_IoFileRef>(f), file_names[f], 0);
  for (std::size_t h = 0; h < u.handles.size(); ++h)
    OTF2_GlobalDefWriter_WriteIoHandle(
        w, static_cast<OTF2_IoHandleRef>(h), file_names[u.handles[h].file], u.handles[h].file,
        kMpiIo, OTF2_IO_HANDLE_FLAG_NONE, static_cast<OTF2_CommRef>(u.handles[h].comm),
        OTF2_UNDEFINED_IO_HANDLE);
}

} // namespace pnmpi::trace

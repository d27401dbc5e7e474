// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include <pnmpi/mapping.h>

namespace {

using Cells = std::map<std::pair<int64_t, int64_t>, uint64_t>;

struct MatrixPtr {
  pnmpi_map_matrix *m = nullptr;
  ~MatrixPtr() { pnmpi_map_matrix_free(m); }
};

void make(int64_t n, const Cells &cells, MatrixPtr &out) {
  std::vector<int64_t> xadj(static_cast<size_t>(n) + 1, 0), adj;
  std::vector<uint64_t> bytes;
  for (const auto &[pair, b] : cells)
    ++xadj[pair.first + 1];
  for (int64_t i = 0; i < n; ++i)
    xadj[i + 1] += xadj[i];
  for (const auto &[pair, b] : cells) {
    adj.push_back(pair.second);
    bytes.push_back(b);
  }
  char err[256];
  ASSERT_EQ(
      pnmpi_map_matrix_from_csr(n, xadj.data(), adj.data(), bytes.data(), &out.m, err, sizeof err),
      0)
      << err;
}

std::vector<int32_t> hosts_of(const std::vector<int> &slots_per_host) {
  std::vector<int32_t> out;
  for (size_t h = 0; h < slots_per_host.size(); ++h)
    out.insert(out.end(), static_cast<size_t>(slots_per_host[h]), static_cast<int32_t>(h));
  return out;
}

std::vector<int32_t> place(const MatrixPtr &m, const std::vector<int32_t> &hosts) {
  std::vector<int32_t> order(hosts.size(), -1);
  char err[256];
  EXPECT_EQ(pnmpi_map_place(m.m, static_cast<int64_t>(hosts.size()), hosts.data(), order.data(),
                            err, sizeof err),
            0)
      << err;
  return order;
}

/// The least crossing bytes over every placement, by enumerating host assignments.
uint64_t optimum(int64_t n, const Cells &cells, const std::vector<int32_t> &hosts) {
  std::vector<int32_t> assign(hosts.begin(), hosts.end());
  std::sort(assign.begin(), assign.end());
  uint64_t best = UINT64_MAX;
  do {
    uint64_t cut = 0;
    for (const auto &[pair, b] : cells)
      if (assign[pair.first] != assign[pair.second])
        cut += b;
    best = std::min(best, cut);
  } while (std::next_permutation(assign.begin(), assign.end()));
  (void)n;
  return best;
}

void expect_fits(const std::vector<int32_t> &order, const std::vector<int32_t> &hosts) {
  std::vector<int32_t> sorted(order);
  std::sort(sorted.begin(), sorted.end());
  for (size_t k = 0; k < sorted.size(); ++k)
    ASSERT_EQ(sorted[k], static_cast<int32_t>(k)) << "not a permutation";
  (void)hosts; // the slots are the hosts' own: a permutation fills each host exactly
}

/// Heavy partners i <-> i + n/2 and a light ring.
Cells partners(int64_t n, uint64_t heavy = 1000000, uint64_t light = 10) {
  Cells c;
  for (int64_t i = 0; i < n; ++i) {
    c[{i, (i + n / 2) % n}] += heavy;
    c[{i, (i + 1) % n}] += light;
  }
  return c;
}

TEST(MappingPlace, PartnersAcrossTwoHostsComeTogether) {
  MatrixPtr m;
  Cells c = partners(8);
  make(8, c, m);
  std::vector<int32_t> hosts = hosts_of({4, 4});
  EXPECT_EQ(pnmpi_map_crossing_bytes(m.m, 8, hosts.data(), nullptr), 8000020u);
  std::vector<int32_t> order = place(m, hosts);
  expect_fits(order, hosts);
  EXPECT_EQ(pnmpi_map_crossing_bytes(m.m, 8, hosts.data(), order.data()), 40u);
  EXPECT_EQ(optimum(8, c, hosts), 40u);
  // Every rank sits with its heavy partner.
  std::vector<int32_t> host_of_rank(8);
  for (int p = 0; p < 8; ++p)
    host_of_rank[order[p]] = hosts[p];
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(host_of_rank[r], host_of_rank[r + 4]) << r;
}

TEST(MappingPlace, PartnersOfALargerJobComeTogether) {
  // 64 ranks on 4 hosts of 16 slots dealt round-robin: beyond the exact search, every heavy
  // pair still ends on one host (only light ring bytes cross).
  MatrixPtr m;
  make(64, partners(64), m);
  std::vector<int32_t> hosts(64);
  for (int p = 0; p < 64; ++p)
    hosts[p] = p % 4;
  std::vector<int32_t> order = place(m, hosts);
  expect_fits(order, hosts);
  EXPECT_EQ(pnmpi_map_crossing_bytes(m.m, 64, hosts.data(), nullptr), 64u * 10);
  EXPECT_LE(pnmpi_map_crossing_bytes(m.m, 64, hosts.data(), order.data()), 64u * 10);
  std::vector<int32_t> blocks = hosts_of({16, 16, 16, 16});
  std::vector<int32_t> order2 = place(m, blocks);
  EXPECT_EQ(pnmpi_map_crossing_bytes(m.m, 64, blocks.data(), nullptr), 64000000u + 4 * 10);
  EXPECT_LE(pnmpi_map_crossing_bytes(m.m, 64, blocks.data(), order2.data()), 64u * 10);
}

TEST(MappingPlace, ReachesTheOptimumOnSmallGraphs) {
  // Pseudo-random graphs (a fixed LCG), on even, uneven and three-host slot lists.
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  const std::vector<std::vector<int>> layouts = {
      {4, 4}, {3, 5}, {2, 3, 3}, {5, 1, 2}, {2, 2, 2, 2}};
  for (int trial = 0; trial < 20; ++trial) {
    Cells c;
    for (int e = 0; e < 14; ++e) {
      int64_t i = static_cast<int64_t>(next() % 8), j = static_cast<int64_t>(next() % 8);
      c[{i, j}] += 1 + next() % 1000;
    }
    MatrixPtr m;
    make(8, c, m);
    for (const auto &layout : layouts) {
      std::vector<int32_t> hosts = hosts_of(layout);
      std::vector<int32_t> order = place(m, hosts);
      expect_fits(order, hosts);
      EXPECT_EQ(pnmpi_map_crossing_bytes(m.m, 8, hosts.data(), order.data()), optimum(8, c, hosts))
          << "trial " << trial << ", layout of " << layout.size() << " hosts";
    }
  }
}

TEST(MappingPlace, UnevenHostsGetExactlyTheirSlots) {
  // A 1-D chain of 10 ranks onto hosts of 1, 6 and 3 slots given round-robin-like
  // (interleaved), with gaps in the host indices (any int32 is an index).
  MatrixPtr m;
  Cells c;
  for (int64_t i = 0; i + 1 < 10; ++i) {
    c[{i, i + 1}] = 100;
    c[{i + 1, i}] = 100;
  }
  make(10, c, m);
  std::vector<int32_t> hosts = {2, 0, 2, 2147483647, 2, 2147483647, 2, 2147483647, 2, 2};
  std::vector<int32_t> order = place(m, hosts);
  expect_fits(order, hosts);
  // Optimal: chain cut into pieces of 1, 6 and 3 -> 2 cut edges both ways.
  EXPECT_EQ(pnmpi_map_crossing_bytes(m.m, 10, hosts.data(), order.data()), 400u);
  EXPECT_EQ(optimum(10, c, hosts), 400u);
}

TEST(MappingPlace, LaunchOrderWhenNothingIsBetter) {
  MatrixPtr none;
  make(4, {}, none);
  std::vector<int32_t> hosts = hosts_of({2, 2});
  EXPECT_EQ(place(none, hosts), (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_STREQ(pnmpi_map_last_method(), "no traffic between ranks: the launch order");
  MatrixPtr ring;
  make(4, partners(4), ring);
  std::vector<int32_t> one = hosts_of({4});
  EXPECT_EQ(place(ring, one), (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_STREQ(pnmpi_map_last_method(), "one host: the launch order");
  // Pairs (0,1) and (2,3) already together: the launch order is optimal and kept.
  MatrixPtr pairs;
  make(4, {{{0, 1}, 50}, {{1, 0}, 50}, {{2, 3}, 70}, {{3, 2}, 70}}, pairs);
  EXPECT_EQ(place(pairs, hosts), (std::vector<int32_t>{0, 1, 2, 3}));
}

TEST(MappingPlace, Deterministic) {
  // A 3-D torus of 8x8x8 ranks with an allreduce-like tree, onto 8 hosts of 64 slots dealt
  // round-robin: twice the same answer, better than the launch order.
  const int64_t n = 512;
  Cells c;
  auto id = [](int64_t x, int64_t y, int64_t z) {
    return ((x + 8) % 8) * 64 + ((y + 8) % 8) * 8 + (z + 8) % 8;
  };
  for (int64_t x = 0; x < 8; ++x)
    for (int64_t y = 0; y < 8; ++y)
      for (int64_t z = 0; z < 8; ++z) {
        int64_t me = id(x, y, z);
        for (int64_t d : {-1, 1}) {
          c[{me, id(x + d, y, z)}] += 4096;
          c[{me, id(x, y + d, z)}] += 4096;
          c[{me, id(x, y, z + d)}] += 4096;
        }
        for (int64_t b = 1; b < n; b <<= 1)
          c[{me, me ^ b}] += 8;
      }
  MatrixPtr m;
  make(n, c, m);
  std::vector<int32_t> hosts(n);
  for (int64_t p = 0; p < n; ++p)
    hosts[p] = static_cast<int32_t>(p % 8);
  std::vector<int32_t> a = place(m, hosts);
  std::string method = pnmpi_map_last_method();
  std::vector<int32_t> b = place(m, hosts);
  EXPECT_EQ(a, b);
  EXPECT_EQ(method, pnmpi_map_last_method());
  expect_fits(a, hosts);
  EXPECT_LT(pnmpi_map_crossing_bytes(m.m, n, hosts.data(), a.data()),
            pnmpi_map_crossing_bytes(m.m, n, hosts.data(), nullptr));
}

TEST(MappingPlace, InvalidArguments) {
  MatrixPtr m;
  make(4, partners(4), m);
  std::vector<int32_t> order(4);
  char err[256];
  std::vector<int32_t> five = hosts_of({3, 2});
  EXPECT_EQ(pnmpi_map_place(m.m, 5, five.data(), order.data(), err, sizeof err), PNMPI_MAP_EINVAL);
  EXPECT_STREQ(err,
               "5 slots for a matrix of 4 ranks: the job must have as many ranks as the matrix");
  std::vector<int32_t> bad = {0, 0, -1, 1};
  EXPECT_EQ(pnmpi_map_place(m.m, 4, bad.data(), order.data(), err, sizeof err), PNMPI_MAP_EINVAL);
  EXPECT_STREQ(err, "slot 2 has host index -1 (host indices start at 0)");
  EXPECT_EQ(pnmpi_map_place(nullptr, 4, bad.data(), order.data(), err, sizeof err),
            PNMPI_MAP_EINVAL);
  EXPECT_STREQ(err, "pnmpi_map_place: the matrix, slot_host and rank_of_slot must not be NULL");
  std::vector<int32_t> hosts = hosts_of({2, 2}), dup = {0, 1, 1, 3};
  EXPECT_EQ(pnmpi_map_crossing_bytes(m.m, 4, hosts.data(), dup.data()), UINT64_MAX);
  EXPECT_EQ(pnmpi_map_crossing_bytes(m.m, 3, hosts.data(), nullptr), UINT64_MAX);

  pnmpi_map_matrix *out = nullptr;
  int64_t xadj[] = {0, 1, 1}, adj[] = {2};
  uint64_t bytes[] = {5};
  EXPECT_EQ(pnmpi_map_matrix_from_csr(2, xadj, adj, bytes, &out, err, sizeof err),
            PNMPI_MAP_EINVAL);
  EXPECT_STREQ(err, "adjncy[0] = 2 (rank 0's peer) is not a rank of 0..1");
  EXPECT_EQ(out, nullptr);
  int64_t down[] = {0, 1, 0}, peer[] = {1};
  EXPECT_EQ(pnmpi_map_matrix_from_csr(2, down, peer, bytes, &out, err, sizeof err),
            PNMPI_MAP_EINVAL);
  EXPECT_STREQ(err, "xadj decreases at rank 1");
  EXPECT_EQ(pnmpi_map_matrix_from_csr(0, xadj, adj, bytes, &out, err, sizeof err),
            PNMPI_MAP_EINVAL);
  EXPECT_STREQ(err, "a matrix of 0 ranks (1 to 2^31-1 are possible)");
  // A short buffer receives the message's beginning, terminated.
  char small[8];
  EXPECT_EQ(pnmpi_map_matrix_from_csr(0, xadj, adj, bytes, &out, small, sizeof small),
            PNMPI_MAP_EINVAL);
  EXPECT_STREQ(small, "a matri");
}

// --- reading runs --------------------------------------------------------------------------

class MappingRun : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/pnmpi-mapping-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    m_dir = tmpl;
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + m_dir + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string path(const std::string &name) const { return m_dir + "/" + name; }
  void write(const std::string &name, const std::string &text) const {
    std::ofstream(path(name), std::ios::binary) << text;
  }
  /// The monitor's .prof files of 4 ranks: a ring of E lines, C lines, I lines (ignored).
  void write_ring_prof(const std::string &prefix) const {
    for (int r = 0; r < 4; ++r) {
      std::string t = "# POINT TO POINT\n";
      t += "E\t" + std::to_string(r) + "\t" + std::to_string((r + 1) % 4) +
           "\t1200 bytes\t4 msgs sent\t1,0,0\n";
      t += "I\t" + std::to_string(r) + "\t" + std::to_string((r + 2) % 4) +
           "\t999 bytes\t1 msgs sent\n";
      t += "# OSC\nS\t" + std::to_string(r) + "\t" + std::to_string((r + 3) % 4) +
           "\t7 bytes\t1 msgs sent\n";
      t += "# COLLECTIVES\nC\t" + std::to_string(r) + "\t" + std::to_string((r + 2) % 4) +
           "\t56 bytes\t1 msgs sent\n";
      t += "D\tMPI_COMM_WORLD\tprocs: 0,1,2,3\nO2A\t" + std::to_string(r) +
           "\t0 bytes\t0 msgs sent\n";
      write(prefix + "." + std::to_string(r) + ".prof", t);
    }
  }
  std::string load_error(const std::string &run, int code) const {
    pnmpi_map_matrix *m = nullptr;
    char err[512];
    EXPECT_EQ(pnmpi_map_load_run(run.c_str(), &m, err, sizeof err), code);
    EXPECT_EQ(m, nullptr);
    return err;
  }
  void load(const std::string &run, MatrixPtr &out) const {
    char err[512];
    ASSERT_EQ(pnmpi_map_load_run(run.c_str(), &out.m, err, sizeof err), 0) << err;
  }
  std::string m_dir;
};

TEST_F(MappingRun, ProfFilesGiveTheApplicationTraffic) {
  write_ring_prof("run");
  std::vector<int32_t> hosts = hosts_of({2, 2});
  for (const std::string &run : {path("run"), path("run.2.prof"), m_dir}) {
    MatrixPtr m;
    load(run, m);
    EXPECT_EQ(pnmpi_map_matrix_size(m.m), 4);
    EXPECT_EQ(pnmpi_map_matrix_total(m.m), 4u * (1200 + 7 + 56)) << run;
    // Ring 0-1 and 2-3 inside hosts: 1->2 and 3->0 cross (1200 each), every C line, and the
    // S lines 0->3 and 2->1.
    EXPECT_EQ(pnmpi_map_crossing_bytes(m.m, 4, hosts.data(), nullptr), 2u * 1200 + 4 * 56 + 2 * 7);
  }
}

TEST_F(MappingRun, MonitorJsonVersions) {
  write("v2.json",
        "{\n \"format\": \"pnmpi-monitor-matrices\",\n \"version\": 2,\n \"world_size\": 4,\n"
        " \"hosts\": [\"a\", \"a\", \"b\", \"b\"],\n \"categories\": {\n"
        "  \"p2p\": {\"origin\": \"application\", \"what\": \"[1,2] \\\"x\\\"\",\n"
        "   \"entries\": [[0, 1, 4, 1200], [1, 2, 4, 1200], [2, 3, 4, 1200], [3, 0, 4, 1200]]},\n"
        "  \"coll\": {\"origin\": \"application\", \"entries\": [[0, 2, 1, 56]]},\n"
        "  \"p2p_tool\": {\"origin\": \"modules\", \"entries\": [[0, 3, 1, 999]]}\n }\n}\n");
  MatrixPtr m;
  load(path("v2.json"), m);
  EXPECT_EQ(pnmpi_map_matrix_total(m.m), 4u * 1200 + 56);
  write("v1.json", "{\"format\": \"pnmpi-monitor-matrices\", \"version\": 1, \"world_size\": 2,\n"
                   "\"categories\": {\"p2p\": {\"origin\": \"application\",\n"
                   "\"counts\": [[0, 1], [1, 0]], \"bytes\": [[0, 30], [40, 0]]}}}\n");
  MatrixPtr m1;
  load(path("v1"), m1);
  EXPECT_EQ(pnmpi_map_matrix_total(m1.m), 70u);
}

TEST_F(MappingRun, BadRunsNameFileAndLine) {
  EXPECT_EQ(load_error(path("none"), PNMPI_MAP_EIO),
            path("none") + ": no such file, directory or output prefix (looked for " +
                path("none") + ".json and " + path("none") + ".<rank>.prof)");
  write_ring_prof("run");
  write("run.1.prof", "E\t1\t2\t5 bytes\t1 msgs sent\nE\t1\t9\t5 bytes\t1 msgs sent\n");
  EXPECT_EQ(load_error(path("run"), PNMPI_MAP_EFORMAT),
            path("run.1.prof") +
                ":2: peer 9, but there are 4 files (ranks 0 to 3): the files of some ranks are "
                "missing, or are of a run of another size");
  write("run.1.prof", "E\t0\t2\t5 bytes\t1 msgs sent\n");
  EXPECT_EQ(load_error(path("run"), PNMPI_MAP_EFORMAT),
            path("run.1.prof") + ":1: a line of rank 0 in rank 1's file: files of different "
                                 "runs or renamed files?");
  write("run.1.prof", "# x\nE\t1\t2\tfive bytes\t1 msgs sent\n");
  EXPECT_EQ(load_error(path("run"), PNMPI_MAP_EFORMAT),
            path("run.1.prof") + ":2: not a line of a .prof file (`E<TAB>me<TAB>peer<TAB>B "
                                 "bytes<TAB>M msgs sent`): E\t1\t2\tfive bytes\t1 msgs sent");
  write("run.1.prof", "E\t1\t2\t5 bytes\t1 msgs sent\nE\t1\t2");
  EXPECT_EQ(load_error(path("run"), PNMPI_MAP_EFORMAT),
            path("run.1.prof") + ":2: the last line has no end: the file is truncated (was the "
                                 "run killed while writing it?)");
  write("run.1.prof", "D\tMPI_COMM_WORLD\tprocs: 0,1,2\n");
  EXPECT_EQ(load_error(path("run"), PNMPI_MAP_EFORMAT),
            path("run.1.prof") + ":1: MPI_COMM_WORLD has 3 processes, but there are 4 files: "
                                 "files of different runs?");
  write("run.1.prof", "Q\n");
  EXPECT_EQ(load_error(path("run"), PNMPI_MAP_EFORMAT),
            path("run.1.prof") + ":1: not a line of a .prof file: Q");
  ASSERT_EQ(unlink(path("run.1.prof").c_str()), 0);
  EXPECT_EQ(load_error(path("run"), PNMPI_MAP_EFORMAT),
            path("run.1.prof") + ": missing: 3 files of " + path("run") +
                ".<rank>.prof were found, so ranks 0 to 2 are expected");

  write("bad.json", "{\"format\": \"pnmpi-monitor-matrices\",\n\"version\": 2,\n"
                    "\"world_size\": 2, \"categories\": {\"p2p\": {\"origin\": "
                    "\"application\",\n\"entries\": [[0, 1, 1, 1.5]]}}}\n");
  EXPECT_EQ(load_error(path("bad.json"), PNMPI_MAP_EFORMAT),
            path("bad.json") + ":4: an entry's numbers must be a non-negative integer (not the "
                               "monitor's JSON, or a damaged one)");
  write("big.json", "{\"format\": \"pnmpi-monitor-matrices\", \"version\": 2,\n"
                    "\"world_size\": 2, \"categories\": {\"p2p\": {\"origin\": "
                    "\"application\",\n\"entries\": [[0, 2, 1, 5]]}}}\n");
  EXPECT_EQ(load_error(path("big.json"), PNMPI_MAP_EFORMAT),
            path("big.json") + ":3: category 'p2p': entries names a rank >= world_size 2");
  write("other.json", "{\"format\": \"something\", \"version\": 2, \"world_size\": 2}\n");
  EXPECT_EQ(
      load_error(path("other.json"), PNMPI_MAP_EFORMAT),
      path("other.json") +
          ": not the monitor's JSON (format \"something\", expected \"pnmpi-monitor-matrices\")");
  write("v9.json", "{\"format\": \"pnmpi-monitor-matrices\",\n\"version\": 9, \"world_size\": 2,"
                   "\"categories\": {}}\n");
  EXPECT_EQ(load_error(path("v9.json"), PNMPI_MAP_EFORMAT),
            path("v9.json") +
                ":2: version 9 of the monitor's JSON is not known (1 and 2 are read)");
  write("cut.json", "{\"format\": \"pnmpi-monitor-matrices\", \"version\": 2,\n\"world_size\": 2");
  EXPECT_EQ(load_error(path("cut.json"), PNMPI_MAP_EFORMAT),
            path("cut.json") + ":2: expected '}' (not the monitor's JSON, or a damaged one)");
  write("empty.json", "");
  EXPECT_EQ(load_error(path("empty.json"), PNMPI_MAP_EFORMAT),
            path("empty.json") +
                ": empty file: not the monitor's JSON (was the run killed before MPI_Finalize?)");
}

} // namespace

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// pnmpi-patch against hostile file-system nodes: FIFOs, devices, directories, sparse giants,
// read-only, foreign and hard-linked targets. Every refusal is exit 1 with one exact message,
// leaves the node as it was and no temporary file behind. Runs that could block or eat the
// machine run under a time limit (and, without ASan, an address-space cap).

#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "support.h"

using namespace pnmpi;
using namespace pnmpi::test;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true; // ASan reserves terabytes of shadow memory: no RLIMIT_AS
#else
constexpr bool kAsan = false;
#endif

constexpr std::uint64_t kGiB = std::uint64_t(1) << 30;

/// A bound for runs that must return at once: a blocked or runaway patcher is killed.
ChildLimits bounded(std::uint64_t address_space = 0) {
  ChildLimits limits;
  limits.seconds = 10;
  limits.address_space = kAsan ? 0 : address_space;
  return limits;
}

std::string error(const std::string &file, const std::string &message) {
  return "pnmpi-patch: " + file + ": " + message + "\n";
}

/// `path` made `size` bytes long without writing them (a sparse file).
void make_sparse(const std::string &path, std::uint64_t size) {
  ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(size)), 0) << path;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Inputs

TEST(Files, FifoAsInputIsRefusedWithoutBlocking) {
  TempDir dir;
  const std::string fifo = dir.file("tool.so");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  const std::vector<std::vector<std::string>> runs{
      {fifo, dir.file("out.so")}, {"--list", fifo}, {"--dry-run", fifo}, {"--in-place", fifo}};
  for (const auto &args : runs) {
    SCOPED_TRACE(args.front());
    const CommandResult r = run_patcher(args, bounded());
    EXPECT_EQ(r.signal, 0) << "pnmpi-patch blocked on the FIFO";
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, error(fifo, "not a regular file"));
    EXPECT_EQ(r.out, "");
    struct stat st;
    ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"tool.so"});
  }
}

TEST(Files, DirectoryAndDeviceAsInputAreRefused) {
  TempDir dir;
  const std::string sub = dir.file("tool.so");
  ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
  for (const std::string &in : {sub, std::string("/dev/null"), std::string("/dev/zero")}) {
    for (const auto &args : std::vector<std::vector<std::string>>{
             {in, dir.file("out.so")}, {"--list", in}, {"--in-place", in}}) {
      SCOPED_TRACE(in + " " + args.front());
      const CommandResult r = run_patcher(args, bounded(kGiB));
      EXPECT_EQ(r.status, 1);
      EXPECT_EQ(r.err, error(in, "not a regular file"));
      EXPECT_EQ(dir.entries(), std::vector<std::string>{"tool.so"});
    }
  }
  struct stat st;
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(Files, HugeSparseInputIsRefusedBeforeReading) {
  TempDir dir;
  const std::uint64_t size = 2 * kGiB;
  const std::string elf = copy_of(dir, FAKE_TOOL, "huge.so");
  make_sparse(elf, size);
  const std::string text = dir.file("huge.txt");
  write_bytes(text, Bytes{'h', 'i', '\n'});
  make_sparse(text, 20 * kGiB);
  const std::string limit = "more than the limit of 1073741824 bytes (1 GiB); a PMPI tool is far "
                            "smaller, so check that this is the right file";
  const std::vector<std::pair<std::vector<std::string>, std::string>> runs{
      {{elf, dir.file("out.so")}, elf},
      {{"--in-place", elf}, elf},
      {{"--list", elf}, elf},
      {{text, dir.file("out.so")}, text},
  };
  for (const auto &[args, in] : runs) {
    SCOPED_TRACE(args.front());
    const CommandResult r = run_patcher(args, bounded(kGiB));
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, error(in, "is too large: " + std::to_string(in == elf ? size : 20 * kGiB) +
                                   " bytes, " + limit));
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"huge.so", "huge.txt"}));
  }
  struct stat st;
  ASSERT_EQ(stat(elf.c_str(), &st), 0);
  EXPECT_EQ(static_cast<std::uint64_t>(st.st_size), size);
}

TEST(Files, InputAtTheLimitIsRead) {
  // The limit is inclusive and not off by one: a file of exactly `max_size` bytes is read.
  TempDir dir;
  const std::string elf = copy_of(dir, FAKE_TOOL, "tool.so");
  struct stat st;
  ASSERT_EQ(stat(elf.c_str(), &st), 0);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  struct stat loaded;
  EXPECT_EQ(ElfObject::load(elf, loaded, size).bytes().size(), size);
  EXPECT_EQ(loaded.st_ino, st.st_ino);
  try {
    ElfObject::load(elf, loaded, size - 1);
    ADD_FAILURE() << "read a file larger than the limit";
  } catch (const PatchError &e) {
    EXPECT_EQ(e.what(), elf + ": is too large: " + std::to_string(size) +
                            " bytes, more than the limit of " + std::to_string(size - 1) +
                            " bytes; a PMPI tool is far smaller, so check that this is the "
                            "right file");
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(PatchErrorKind::refused));
  }
}

TEST(Files, OutOfMemoryNamesTheFileAndLeavesNothing) {
  if (kAsan)
    GTEST_SKIP() << "an address-space cap does not work under ASan";
  TempDir dir;
  const std::string elf = copy_of(dir, FAKE_TOOL, "big.so");
  make_sparse(elf, 600 * (kGiB >> 10));
  for (const auto &args :
       std::vector<std::vector<std::string>>{{elf, dir.file("out.so")}, {"--in-place", elf}}) {
    SCOPED_TRACE(args.front());
    ChildLimits limits = bounded();
    limits.address_space = 256 * (kGiB >> 10);
    const CommandResult r = run_patcher(args, limits);
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, error(elf, "out of memory (std::bad_alloc)"));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"big.so"});
  }
}

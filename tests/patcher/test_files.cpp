// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// pnmpi-patch against hostile file-system nodes: FIFOs, devices, directories, sparse giants,
// read-only, foreign and hard-linked targets. Every refusal is exit 1 with one exact message,
// leaves the node as it was and no temporary file behind. Runs that could block or eat the
// machine run under a time limit (and, without ASan, an address-space cap).

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <new>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
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

// ---------------------------------------------------------------------------------------------
// Outputs

namespace {

const char kNotRegular[] =
    ", not a regular file; pnmpi-patch replaces only regular files: write to another OUT";

struct NodeId {
  mode_t type = 0;
  dev_t rdev = 0;
  ino_t ino = 0;
  bool operator==(const NodeId &o) const {
    return type == o.type && rdev == o.rdev && ino == o.ino;
  }
};

/// What `path` is (not following a symbolic link).
NodeId node(const std::string &path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0)
    return {};
  return {static_cast<mode_t>(st.st_mode & S_IFMT), st.st_rdev, st.st_ino};
}

/// Runs pnmpi-patch on IN and OUT for a tool and for a library with nothing to rename (which
/// is copied), and expects the refusal `message` about `out`, with `out` and `dir` unchanged.
void expect_output_refused(const TempDir &dir, const std::string &out, const std::string &message) {
  const NodeId before = node(out);
  const std::vector<std::string> listing = dir.entries();
  for (const char *in : {FAKE_TOOL, PLAIN_LIB}) {
    SCOPED_TRACE(std::string(in) + " -> " + out);
    const CommandResult r = run_patcher({in, out}, bounded());
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, error(out, message)); // OUT is checked before the nothing-to-do warning
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(node(out), before);
    EXPECT_EQ(dir.entries(), listing);
  }
}

} // namespace

TEST(Files, DeviceAsOutputIsRefusedAndKept) {
  TempDir dir;
  // A private null device first, so that an unfixed patcher never gets at the real /dev/null.
  const std::string null = dir.file("null");
  if (mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    expect_output_refused(dir, null, "is a character device" + std::string(kNotRegular));
    ASSERT_TRUE(S_ISCHR(node(null).type)) << "the patcher replaced a device node";
    ASSERT_FALSE(HasFailure());
  }
  for (const std::string device : {"/dev/null", "/dev/full"}) {
    expect_output_refused(dir, device, "is a character device" + std::string(kNotRegular));
    EXPECT_TRUE(S_ISCHR(node(device).type)) << device;
  }
}

TEST(Files, FifoSocketAndLinksAsOutputAreRefused) {
  TempDir dir;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  expect_output_refused(dir, fifo, "is a FIFO" + std::string(kNotRegular));

  const std::string sock = dir.file("sock");
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(sock.size(), sizeof address.sun_path);
  std::memcpy(address.sun_path, sock.c_str(), sock.size() + 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
  close(fd);
  expect_output_refused(dir, sock, "is a socket" + std::string(kNotRegular));

  const std::string to_fifo = dir.file("to-fifo.so");
  ASSERT_EQ(symlink("fifo", to_fifo.c_str()), 0);
  expect_output_refused(dir, to_fifo,
                        "is a symbolic link to fifo, which is a FIFO" + std::string(kNotRegular));
  // A link to a private device node: a patcher that followed it to the real /dev/null would
  // replace the machine's /dev/null.
  const std::string null = dir.file("null");
  if (mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    const std::string to_null = dir.file("to-null.so");
    ASSERT_EQ(symlink(null.c_str(), to_null.c_str()), 0);
    expect_output_refused(dir, to_null,
                          "is a symbolic link to " + null + ", which is a character device" +
                              std::string(kNotRegular));
    EXPECT_TRUE(S_ISCHR(node(null).type));
  }
  const std::string dangling = dir.file("dangling.so");
  ASSERT_EQ(symlink("missing/tool.so", dangling.c_str()), 0);
  expect_output_refused(dir, dangling,
                        "is a symbolic link to a missing file (missing/tool.so); pnmpi-patch "
                        "does not create a file through a link: remove the link or write to "
                        "another OUT");
  EXPECT_FALSE(exists(dir.file("missing")));
}

TEST(Files, DirectoryAsOutputIsAUsageError) {
  TempDir dir;
  const std::string sub = dir.file("modules");
  ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
  const std::string link = dir.file("link");
  ASSERT_EQ(symlink("modules", link.c_str()), 0);
  for (const std::string &out : {sub, link}) {
    const CommandResult r = run_patcher({FAKE_TOOL, out}, bounded());
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "pnmpi-patch: OUT '" + out + "' is a directory\nTry 'pnmpi-patch --help'.\n");
    EXPECT_EQ(r.out, "");
  }
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"link", "modules"}));
  EXPECT_TRUE(S_ISDIR(node(sub).type));
  EXPECT_TRUE(std::filesystem::is_empty(sub));
}

TEST(Files, ReadOnlyTargetIsRefusedEvenForRoot) {
  TempDir dir;
  const std::string in = copy_of(dir, FAKE_TOOL, "tool.so", 0444);
  const Bytes original = read_bytes(in);
  const CommandResult r = run_patcher({"--in-place", in});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, error(in, "is read-only (mode 0444); make it writable or write to another OUT"));
  EXPECT_EQ(read_bytes(in), original);
  EXPECT_EQ(mode_of(in), 0444u);

  const std::string out = copy_of(dir, PLAIN_LIB, "out.so", 0555);
  const Bytes kept = read_bytes(out);
  const CommandResult r2 = run_patcher({in, out});
  EXPECT_EQ(r2.status, 1);
  EXPECT_EQ(r2.err,
            error(out, "is read-only (mode 0555); make it writable or write to another OUT"));
  EXPECT_EQ(read_bytes(out), kept);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"out.so", "tool.so"}));
  // Made writable, it is replaced.
  ASSERT_EQ(chmod(in.c_str(), 0644), 0);
  EXPECT_EQ(run_patcher({"--in-place", in}).status, 0);
  EXPECT_EQ(mode_of(in), 0644u);
}

TEST(Files, AnotherUsersFileIsRefused) {
  TempDir dir;
  const std::string in = copy_of(dir, FAKE_TOOL, "tool.so", 0755);
  const std::string out = copy_of(dir, PLAIN_LIB, "out.so", 0755);
  if (chown(in.c_str(), 12345, static_cast<gid_t>(-1)) != 0 ||
      chown(out.c_str(), 12345, static_cast<gid_t>(-1)) != 0)
    GTEST_SKIP() << "giving a file away needs root";
  const std::string why = ", not by you (user " + std::to_string(geteuid()) +
                          "); replacing it would make it yours: run as its owner or write to "
                          "another OUT";
  const Bytes original = read_bytes(in);
  const CommandResult r = run_patcher({"--in-place", in});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, error(in, "is owned by user 12345" + why));
  EXPECT_EQ(read_bytes(in), original);
  const CommandResult r2 = run_patcher({FAKE_TOOL, out});
  EXPECT_EQ(r2.status, 1);
  EXPECT_EQ(r2.err, error(out, "is owned by user 12345" + why));
  EXPECT_EQ(read_bytes(out), read_bytes(PLAIN_LIB));
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"out.so", "tool.so"}));
}

TEST(Files, ReplacedFileKeepsItsModeAndGroup) {
  TempDir dir;
  const std::string in = copy_of(dir, FAKE_TOOL, "tool.so", 0755);
  const std::string out = copy_of(dir, PLAIN_LIB, "out.so", 0640);
  const bool root = chown(out.c_str(), static_cast<uid_t>(-1), 12345) == 0;
  const CommandResult r = run_patcher({in, out});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "pnmpi-patch: renamed 3 PMPI_ import(s) to XMPI_ in " + in + " -> " + out + "\n");
  EXPECT_EQ(mode_of(out), 0640u);
  struct stat st;
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  if (root) {
    EXPECT_EQ(st.st_gid, 12345u);
  }
  // --in-place keeps set-id bits too.
  ASSERT_EQ(chmod(in.c_str(), 02750), 0);
  EXPECT_EQ(run_patcher({"--in-place", in}).status, 0);
  EXPECT_EQ(mode_of(in), 02750u);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"out.so", "tool.so"}));
}

TEST(Files, HardLinkedTargetIsRefused) {
  TempDir dir;
  const std::string in = copy_of(dir, FAKE_TOOL, "tool.so");
  const Bytes original = read_bytes(in);
  const std::string twin = dir.file("twin.so");
  ASSERT_EQ(link(in.c_str(), twin.c_str()), 0);
  const std::string links = " has 2 hard links; replacing it would change this name only and "
                            "leave the other links with the old contents: remove the other "
                            "links or write to another OUT";
  // OUT is another name of IN: not "in place", and not half-done either.
  const CommandResult r = run_patcher({in, twin});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "pnmpi-patch: " + twin + ":" + links + "\n");
  EXPECT_EQ(r.out, "");
  const CommandResult r2 = run_patcher({"--in-place", in});
  EXPECT_EQ(r2.status, 1);
  EXPECT_EQ(r2.err, "pnmpi-patch: " + in + ":" + links + "\n");
  const CommandResult r3 = run_patcher({PLAIN_LIB, twin});
  EXPECT_EQ(r3.status, 1);
  EXPECT_EQ(read_bytes(in), original);
  EXPECT_EQ(read_bytes(twin), original);
  EXPECT_EQ(node(in), node(twin));
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"tool.so", "twin.so"}));
}

// ---------------------------------------------------------------------------------------------
// The library: what write_file_atomically() does when the target changes under it

namespace {

/// Expects `f` to throw PatchError of `kind` with exactly `message`.
template <class F> void expect_patch_error(F f, PatchErrorKind kind, const std::string &message) {
  try {
    f();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const PatchError &e) {
    EXPECT_EQ(e.what(), message);
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << e.what();
  }
}

} // namespace

TEST(AtomicWrite, TargetCreatedMeanwhileIsNotReplaced) {
  TempDir dir;
  const std::string target = dir.file("out.so");
  const OutputTarget checked = check_output(target);
  EXPECT_FALSE(checked.exists);
  expect_patch_error(
      [&] {
        write_file_atomically(checked, {1, 2, 3}, 0755,
                              [&](const std::string &) { write_bytes(target, {7}); });
      },
      PatchErrorKind::io,
      target + ": was created by another process while pnmpi-patch was writing; nothing was "
               "written: run pnmpi-patch again");
  EXPECT_EQ(read_bytes(target), Bytes{7});
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.so"});
}

TEST(AtomicWrite, TargetSwappedMeanwhileIsNotReplaced) {
  TempDir dir;
  const std::string target = dir.file("out.so");
  write_bytes(target, {9});
  const OutputTarget checked = check_output(target);
  EXPECT_TRUE(checked.exists);
  const std::string fifo = dir.file("fifo");
  expect_patch_error(
      [&] {
        write_file_atomically(checked, {1, 2, 3}, 0755, [&](const std::string &) {
          // Another process puts a FIFO where the checked file was.
          ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
          ASSERT_EQ(rename(fifo.c_str(), target.c_str()), 0);
        });
      },
      PatchErrorKind::io,
      target + ": was replaced or removed by another process while pnmpi-patch was writing; "
               "nothing was written: run pnmpi-patch again");
  struct stat st;
  ASSERT_EQ(lstat(target.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.so"});
}

TEST(AtomicWrite, AnyExceptionLeavesNothing) {
  TempDir dir;
  const std::string target = dir.file("out.so");
  write_bytes(target, {9});
  EXPECT_THROW(write_file_atomically(target, {1, 2, 3}, 0755,
                                     [](const std::string &) { throw std::bad_alloc(); }),
               std::bad_alloc);
  EXPECT_EQ(read_bytes(target), Bytes{9});
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.so"});
}

TEST(AtomicWrite, CheckOutputFollowsLinksToRegularFiles) {
  TempDir dir;
  const std::string real = dir.file("libtool.so.1");
  write_bytes(real, {1});
  const std::string link = dir.file("libtool.so");
  ASSERT_EQ(symlink("libtool.so.1", link.c_str()), 0);
  const OutputTarget target = check_output(link);
  EXPECT_TRUE(target.exists);
  EXPECT_EQ(target.path, std::filesystem::canonical(real).string());
  write_file_atomically(target, {2, 3}, 0640, [](const std::string &) {});
  EXPECT_EQ(read_bytes(real), (Bytes{2, 3}));
  struct stat st;
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"libtool.so", "libtool.so.1"}));
}

namespace {

char g_temporary[4096];
volatile sig_atomic_t g_signals = 0;
volatile sig_atomic_t g_temporary_existed = 0;

extern "C" void note_signal(int) {
  ++g_signals;
  if (access(g_temporary, F_OK) == 0)
    g_temporary_existed = 1;
}

} // namespace

TEST(AtomicWrite, TerminationWaitsUntilTheTemporaryFileIsGone) {
  TempDir dir;
  const std::string target = dir.file("out.so");
  struct sigaction action {};
  action.sa_handler = note_signal;
  sigemptyset(&action.sa_mask);
  struct sigaction saved {};
  ASSERT_EQ(sigaction(SIGTERM, &action, &saved), 0);
  g_signals = 0;
  g_temporary_existed = 0;
  EXPECT_THROW(write_file_atomically(target, {1, 2, 3}, 0755,
                                     [](const std::string &temporary) {
                                       std::snprintf(g_temporary, sizeof g_temporary, "%s",
                                                     temporary.c_str());
                                       raise(SIGTERM); // as if the user pressed Ctrl-C
                                       throw PatchError(PatchErrorKind::internal, "stopped");
                                     }),
               PatchError);
  sigaction(SIGTERM, &saved, nullptr);
  EXPECT_EQ(g_signals, 1);
  EXPECT_EQ(g_temporary_existed, 0) << "the signal arrived while " << g_temporary << " existed";
  EXPECT_TRUE(dir.entries().empty());
}

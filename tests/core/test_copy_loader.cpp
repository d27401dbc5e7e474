// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <iterator>
#include <link.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "copy_loader.h"
#include "elf_slide.h"
#include "input_file.h"
#include "module_loader.h"
#include "pnmpi_test_config.h"

namespace pnmpi {
namespace {

std::vector<unsigned char> read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The lines of /proc/self/maps that map `path` executable.
std::vector<std::string> executable_mappings(const std::string &path) {
  std::ifstream maps("/proc/self/maps");
  std::vector<std::string> found;
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::string range, perms;
    fields >> range >> perms;
    if (perms.size() == 4 && perms[2] == 'x' && line.size() >= path.size() &&
        line.compare(line.size() - path.size(), path.size(), path) == 0)
      found.push_back(line);
  }
  return found;
}

template <typename Fn> Fn symbol(void *handle, const char *name) {
  return reinterpret_cast<Fn>(::dlsym(handle, name));
}
template <typename Fn> Fn symbol(const CopyPlan &plan, std::uintptr_t base, const char *name) {
  return reinterpret_cast<Fn>(copy_symbol(plan, base, name));
}

using IntFn = int (*)();

TEST(CopyLoader, CopiesHavePrivateDataAndMapTheFilesOwnCode) {
  const std::string path = PNMPI_TEST_COPY_FIXTURE;
  const std::vector<unsigned char> bytes = read_file(path);
  void *first = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(first, nullptr) << ::dlerror();
  std::string why_not;
  CopyPlanPtr plan = plan_copies(bytes, path, first, why_not);
  ASSERT_NE(plan, nullptr) << why_not;
  const std::uintptr_t second = map_copy(*plan, bytes, 0, "test");
  const std::uintptr_t third = map_copy(*plan, bytes, 0, "test");

  // Three copies of the code, all the file's own pages: nothing was written anywhere.
  EXPECT_EQ(executable_mappings(path).size(), 3u);
  EXPECT_EQ(executable_mappings("(deleted)").size(), 0u);

  const IntFn bump[] = {symbol<IntFn>(first, "copy_fixture_bump"),
                        symbol<IntFn>(*plan, second, "copy_fixture_bump"),
                        symbol<IntFn>(*plan, third, "copy_fixture_bump")};
  const IntFn check[] = {symbol<IntFn>(first, "copy_fixture_check"),
                         symbol<IntFn>(*plan, second, "copy_fixture_check"),
                         symbol<IntFn>(*plan, third, "copy_fixture_check")};
  int *counter[] = {symbol<int *>(first, "copy_fixture_counter"),
                    symbol<int *>(*plan, second, "copy_fixture_counter"),
                    symbol<int *>(*plan, third, "copy_fixture_counter")};
  int **pointer[] = {symbol<int **>(first, "copy_fixture_pointer"),
                     symbol<int **>(*plan, second, "copy_fixture_pointer"),
                     symbol<int **>(*plan, third, "copy_fixture_pointer")};
  for (int copy = 0; copy < 3; ++copy) {
    ASSERT_NE(bump[copy], nullptr);
    EXPECT_EQ(*pointer[copy], counter[copy]) << "copy " << copy << " points at its own data";
    for (int n = 0; n <= copy; ++n)
      bump[copy]();
  }
  for (int copy = 0; copy < 3; ++copy) {
    EXPECT_EQ(*counter[copy], copy + 1) << "copy " << copy;
    EXPECT_EQ(check[copy](), 14) << "copy " << copy << ": its .bss is zero, its tables relocated";
  }
  EXPECT_EQ(copy_symbol(*plan, second, "no_such_symbol"), nullptr);
}

/// The permissions ("rw-p", ...) of the mapping holding `address`, from /proc/self/maps.
std::string permissions_at(std::uintptr_t address) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::string range, perms;
    fields >> range >> perms;
    const std::size_t dash = range.find('-');
    if (address >= std::stoull(range.substr(0, dash), nullptr, 16) &&
        address < std::stoull(range.substr(dash + 1), nullptr, 16))
      return perms;
  }
  return "";
}

TEST(CopyLoader, SlidCopiesShareOneMemoryImagePerSlide) {
  const std::string path = PNMPI_TEST_COPY_FIXTURE;
  const std::vector<unsigned char> bytes = read_file(path);
  void *first = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(first, nullptr) << ::dlerror();
  std::string why_not;
  CopyPlanPtr plan = plan_copies(bytes, path, first, why_not);
  ASSERT_NE(plan, nullptr) << why_not;
  const std::vector<std::uint64_t> slides = slide_amounts(bytes, why_not);
  ASSERT_GE(slides.size(), 2u) << why_not;
  const std::uintptr_t bases[] = {map_copy(*plan, bytes, slides[0], "test"),
                                  map_copy(*plan, bytes, slides[1], "test"),
                                  map_copy(*plan, bytes, slides[0], "test")};
  EXPECT_EQ(executable_mappings(path).size(), 1u) << "only the first copy maps the file";
  EXPECT_EQ(executable_mappings("/memfd:pnmpi-copy (deleted)").size(), 3u);
  EXPECT_EQ(executable_mappings(".so (deleted)").size(), 0u) << "no copy file was written";
  for (const std::uintptr_t base : bases) {
    EXPECT_EQ(symbol<IntFn>(*plan, base, "copy_fixture_bump")(), 1);
    EXPECT_EQ(symbol<IntFn>(*plan, base, "copy_fixture_check")(), 14);
  }
  // Each sits its slide above a page boundary, so the layers' code lands in other sets.
  const auto offset = [&](std::uintptr_t base) {
    return reinterpret_cast<std::uintptr_t>(copy_symbol(*plan, base, "copy_fixture_bump")) % 4096;
  };
  const std::uintptr_t unslid =
      reinterpret_cast<std::uintptr_t>(::dlsym(first, "copy_fixture_bump")) % 4096;
  EXPECT_EQ(offset(bases[0]), (unslid + slides[0]) % 4096);
  EXPECT_EQ(offset(bases[1]), (unslid + slides[1]) % 4096);
}

/// Runs `body` in a child with COPY_FIXTURE_FD set and returns what the child wrote there,
/// constructors, destructors and all, after the child exits normally.
std::string lines_of_child(const std::function<void(int fd)> &body) {
  int fds[2];
  if (::pipe(fds) != 0)
    return "(no pipe)";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::setenv("COPY_FIXTURE_FD", std::to_string(fds[1]).c_str(), 1);
    body(fds[1]);
    std::exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    text += "(child failed)";
  return text;
}

TEST(CopyLoader, ConstructorsAndDestructorsRunOncePerCopyInOrder) {
  const std::string text = lines_of_child([](int fd) {
    const std::string path = PNMPI_TEST_COPY_FIXTURE;
    const std::vector<unsigned char> bytes = read_file(path);
    void *first = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    std::string why_not;
    CopyPlanPtr plan = plan_copies(bytes, path, first, why_not);
    const std::vector<std::uint64_t> slides = slide_amounts(bytes, why_not);
    if (first == nullptr || plan == nullptr || slides.empty())
      std::exit(2);
    const std::uintptr_t second = map_copy(*plan, bytes, 0, "test");
    const std::uintptr_t third = map_copy(*plan, bytes, slides[0], "test");
    const std::string line =
        "loaded " + std::to_string(::dlsym(first, "copy_fixture_counter") != nullptr) + "\n";
    if (::write(fd, line.data(), line.size()) < 0)
      std::exit(3);
    std::ostringstream order;
    order << "order " << ::dlsym(first, "copy_fixture_counter") << " "
          << copy_symbol(*plan, second, "copy_fixture_counter") << " "
          << copy_symbol(*plan, third, "copy_fixture_counter") << "\n";
    if (::write(fd, order.str().data(), order.str().size()) < 0)
      std::exit(3);
  });
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  ASSERT_EQ(lines.size(), 8u) << text;
  std::istringstream order(lines[4]);
  std::string word, a, b, c;
  order >> word >> a >> b >> c;
  ASSERT_EQ(word, "order") << text;
  const std::vector<std::string> want = {"ctor " + a, "ctor " + b, "ctor " + c, "loaded 1",
                                         lines[4],    "dtor " + c, "dtor " + b, "dtor " + a};
  EXPECT_EQ(lines, want) << text;
}

TEST(CopyLoader, RelroPagesStayWritableUntilTheCopyIsProtected) {
  // In a child: the copies must not add to the mappings the other tests count.
  const std::string text = lines_of_child([](int fd) {
    const std::string path = PNMPI_TEST_COPY_FIXTURE;
    const std::vector<unsigned char> bytes = read_file(path);
    const auto *header = reinterpret_cast<const ElfW(Ehdr) *>(bytes.data());
    const auto *phdrs = reinterpret_cast<const ElfW(Phdr) *>(bytes.data() + header->e_phoff);
    std::uintptr_t relro = 0, relro_size = 0;
    for (int i = 0; i < header->e_phnum; ++i)
      if (phdrs[i].p_type == PT_GNU_RELRO) {
        relro = phdrs[i].p_vaddr;
        relro_size = phdrs[i].p_memsz;
      }
    void *first = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    std::string why_not;
    CopyPlanPtr plan = plan_copies(bytes, path, first, why_not);
    std::vector<std::uint64_t> slides = slide_amounts(bytes, why_not);
    if (relro == 0 || first == nullptr || plan == nullptr || slides.empty())
      std::exit(2);
    slides.insert(slides.begin(), 0);
    for (const std::uint64_t slide : slides) {
      const std::uintptr_t base = map_copy(*plan, bytes, slide, "test");
      // What the dynamic linker protects: both ends rounded down, so a RELRO within one
      // page (at some slides) leaves that page writable.
      const std::uintptr_t page = (base + relro) & ~std::uintptr_t{4095};
      const bool protects = page < ((base + relro + relro_size) & ~std::uintptr_t{4095});
      const std::string before = permissions_at(page).substr(0, 3);
      protect_copy(*plan, base);
      const std::string line =
          std::to_string(protects) + " " + before + " " + permissions_at(page).substr(0, 3) + " " +
          std::to_string(symbol<IntFn>(*plan, base, "copy_fixture_check")()) + "\n";
      if (::write(fd, line.data(), line.size()) < 0)
        std::exit(3);
    }
  });
  std::istringstream in(text);
  int protected_copies = 0, copies = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("ctor", 0) == 0 || line.rfind("dtor", 0) == 0)
      continue;
    std::istringstream fields(line);
    int protects = 0, check = 0;
    std::string before, after;
    ASSERT_TRUE(fields >> protects >> before >> after >> check) << text;
    ++copies;
    protected_copies += protects;
    EXPECT_EQ(before, "rw-") << "relocated but not yet bound: still writable\n" << text;
    EXPECT_EQ(after, protects ? "r--" : "rw-") << text;
    EXPECT_EQ(check, 14) << text;
  }
  EXPECT_GE(copies, 2) << text;
  EXPECT_GE(protected_copies, 1) << "no copy had a RELRO page to protect\n" << text;
}

TEST(CopyLoader, ACxxCopyThrowsAndCatchesInsideItself) {
  const std::string path = PNMPI_TEST_COPY_FIXTURE_CXX;
  const std::vector<unsigned char> bytes = read_file(path);
  void *first = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(first, nullptr) << ::dlerror();
  std::string why_not;
  CopyPlanPtr plan = plan_copies(bytes, path, first, why_not);
  ASSERT_NE(plan, nullptr) << why_not;
  const std::vector<std::uint64_t> slides = slide_amounts(bytes, why_not);
  const std::uintptr_t bases[] = {map_copy(*plan, bytes, 0, "test"),
                                  map_copy(*plan, bytes, slides.empty() ? 0 : slides[0], "test")};
  using ThrowFn = int (*)(int);
  EXPECT_EQ(symbol<ThrowFn>(first, "copy_fixture_throw")(3), 1003);
  for (const std::uintptr_t base : bases) {
    EXPECT_EQ(symbol<ThrowFn>(*plan, base, "copy_fixture_throw")(0), 1000);
    EXPECT_EQ(symbol<ThrowFn>(*plan, base, "copy_fixture_throw")(5), 1005);
    EXPECT_EQ(symbol<IntFn>(*plan, base, "copy_fixture_constructed")(), 1)
        << "each copy constructed its own static object once";
  }
  EXPECT_EQ(symbol<IntFn>(first, "copy_fixture_constructed")(), 1);
}

TEST(CopyLoader, ThreadLocalStorageIsLeftToTheDynamicLinker) {
  const std::string path = PNMPI_TEST_COPY_FIXTURE_TLS;
  const std::vector<unsigned char> bytes = read_file(path);
  void *first = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(first, nullptr) << ::dlerror();
  std::string why_not;
  EXPECT_EQ(plan_copies(bytes, path, first, why_not), nullptr);
  EXPECT_EQ(why_not, "it has thread-local storage (PT_TLS)");
}

/// A fresh, empty directory under the scratch directory.
std::string fresh_directory(const std::string &name) {
  ::mkdir(PNMPI_TEST_SCRATCH_DIR, 0755);
  const std::string dir = std::string(PNMPI_TEST_SCRATCH_DIR) + "/" + name;
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

std::size_t entries(const std::string &dir) {
  std::size_t n = 0;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (const dirent *e = ::readdir(d))
      n += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
    ::closedir(d);
  }
  return n;
}

ModuleFile module_file(const std::string &path) {
  ModuleFile file;
  file.path = path;
  file.bytes = read_file(path);
  return file;
}

TEST(CopyLoader, LayersAfterTheFirstAreMappedWithoutACopyDirectory) {
  const std::string dir = fresh_directory("copies-mapped");
  ModuleFile file = module_file(PNMPI_TEST_COPY_FIXTURE);
  Config config;
  config.path = "site.conf";
  const ModuleSpec spec{"copy_fixture", 4, 0, {}};
  CopyDirectory copies({dir});
  const LoadedModule layers[] = {load_module_copy(file, spec, config, copies, 0),
                                 load_module_copy(file, spec, config, copies, 1),
                                 load_module_copy(file, spec, config, copies, 2)};
  EXPECT_NE(layers[0].handle, nullptr);
  EXPECT_EQ(layers[0].mapped, nullptr);
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(layers[i].handle, nullptr);
    EXPECT_NE(layers[i].mapped, nullptr);
  }
  EXPECT_EQ(entries(dir), 0u) << "no copy directory was made";
  for (int i = 0; i < 3; ++i) {
    auto *counter = static_cast<int *>(module_symbol(layers[i], "copy_fixture_counter"));
    ASSERT_NE(counter, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(counter),
              layers[i].base + (reinterpret_cast<std::uintptr_t>(
                                    module_symbol(layers[0], "copy_fixture_counter")) -
                                layers[0].base))
        << "base + link-time address reaches layer " << i << "'s own data";
    EXPECT_EQ(reinterpret_cast<IntFn>(module_symbol(layers[i], "copy_fixture_bump"))(), 1);
  }
}

/// Writes `bytes` to `path` as an installer does: a new file renamed over the old one.
void replace_file(const std::string &path, const std::vector<unsigned char> &bytes) {
  const std::string temporary = path + ".new";
  std::ofstream(temporary, std::ios::binary)
      .write(reinterpret_cast<const char *>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  ASSERT_EQ(std::rename(temporary.c_str(), path.c_str()), 0);
}

ModuleFile read_with_identity(const std::string &path) {
  ModuleFile file;
  file.path = path;
  file.bytes = read_input_file(path, 1ull << 30, "test", &file.identity);
  file.identity_known = true;
  return file;
}

TEST(CopyLoader, AModuleFileReplacedAfterItWasReadIsRefused) {
  const std::string dir = fresh_directory("copies-replaced");
  const std::string path = dir + "/copy_fixture.so";
  const std::vector<unsigned char> original = read_file(PNMPI_TEST_COPY_FIXTURE);
  replace_file(path, original);
  Config config;
  config.path = "site.conf";
  const ModuleSpec spec{"copy_fixture", 4, 0, {}};
  const std::string want =
      "site.conf:4: module 'copy_fixture' (" + path +
      "): the file was replaced or rewritten after pnmpi read it (an installation while the job "
      "started?): its layers would mix two versions of it; start the job again once it no "
      "longer changes";
  {
    // Replaced by a file of the same size (the same bytes, even) between the read and the
    // first layer, which the dynamic linker opens by its path.
    ModuleFile file = read_with_identity(path);
    replace_file(path, original);
    CopyDirectory copies({dir});
    try {
      load_module_copy(file, spec, config, copies, 0);
      ADD_FAILURE() << "the replaced file was loaded";
    } catch (const std::exception &e) {
      EXPECT_EQ(e.what(), want);
    }
  }
  {
    // Rewritten in place (the same inode and size) between the first layer and the second,
    // which the copy loader maps from the file.
    ModuleFile file = read_with_identity(path);
    CopyDirectory copies({dir});
    load_module_copy(file, spec, config, copies, 0);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, original.data(), 16, 0), 16);
    const timespec times[2] = {{946684800, 0}, {946684800, 0}}; // 2000-01-01: another mtime
    ASSERT_EQ(::futimens(fd, times), 0);
    ::close(fd);
    try {
      load_module_copy(file, spec, config, copies, 1);
      ADD_FAILURE() << "the rewritten file was mapped";
    } catch (const std::exception &e) {
      EXPECT_EQ(e.what(), want);
    }
  }
}

TEST(CopyLoader, AModuleWithThreadLocalStorageFallsBackToCopyFiles) {
  const std::string dir = fresh_directory("copies-tls");
  ModuleFile file = module_file(PNMPI_TEST_COPY_FIXTURE_TLS);
  Config config;
  config.path = "site.conf";
  const ModuleSpec spec{"tls", 4, 0, {}};
  CopyDirectory copies({dir});
  const LoadedModule first = load_module_copy(file, spec, config, copies, 0);
  const LoadedModule second = load_module_copy(file, spec, config, copies, 1);
  EXPECT_NE(second.handle, nullptr);
  EXPECT_EQ(second.mapped, nullptr);
  EXPECT_EQ(file.copy_plan, nullptr);
  EXPECT_NE(first.base, second.base);
  using BumpFn = int (*)();
  const auto bump_first = reinterpret_cast<BumpFn>(module_symbol(first, "copy_fixture_tls_bump"));
  const auto bump_second = reinterpret_cast<BumpFn>(module_symbol(second, "copy_fixture_tls_bump"));
  EXPECT_EQ(bump_first(), 1);
  EXPECT_EQ(bump_first(), 2);
  EXPECT_EQ(bump_second(), 1) << "the file copy has its own thread-local variable";
  EXPECT_EQ(entries(dir), 1u) << "the copy directory was made for it";
}

} // namespace
} // namespace pnmpi

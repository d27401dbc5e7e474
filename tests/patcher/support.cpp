// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "support.h"

#include <algorithm>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace pnmpi::test {

Bytes read_bytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string &path, const Bytes &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out)
    throw std::runtime_error("cannot write " + path);
}

Bytes truncated(Bytes bytes, std::size_t count) {
  bytes.resize(bytes.size() - std::min(count, bytes.size()));
  return bytes;
}

mode_t mode_of(const std::string &path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return 0;
  return st.st_mode & 07777;
}

bool exists(const std::string &path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

TempDir::TempDir() {
  const char *base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/pnmpi-patch-test.XXXXXX";
  if (!mkdtemp(pattern.data()))
    throw std::runtime_error("mkdtemp failed");
  m_path = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(m_path, ignored);
}

std::vector<std::string> TempDir::entries() const {
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(m_path))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string copy_of(const TempDir &dir, const std::string &source, const std::string &name,
                    mode_t mode) {
  const std::string path = dir.file(name);
  write_bytes(path, read_bytes(source));
  if (chmod(path.c_str(), mode) != 0)
    throw std::runtime_error("cannot chmod " + path);
  return path;
}

CommandResult run(const std::vector<std::string> &argv, const ChildLimits &limits) {
  TempDir dir;
  const std::string out_path = dir.file("out");
  const std::string err_path = dir.file("err");
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  // fork rather than posix_spawn, to set the limits in the child; between fork and exec the
  // child only makes async-signal-safe calls. The alarm survives exec.
  const pid_t pid = fork();
  if (pid < 0)
    throw std::runtime_error("cannot fork to run " + argv[0]);
  if (pid == 0) {
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
      _exit(126);
    close(out);
    close(err);
    if (limits.address_space != 0) {
      const struct rlimit cap { limits.address_space, limits.address_space };
      if (setrlimit(RLIMIT_AS, &cap) != 0)
        _exit(126);
    }
    if (limits.seconds != 0)
      alarm(limits.seconds);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  CommandResult result;
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  const Bytes out = read_bytes(out_path);
  const Bytes err = read_bytes(err_path);
  result.out.assign(out.begin(), out.end());
  result.err.assign(err.begin(), err.end());
  return result;
}

CommandResult run_patcher(const std::vector<std::string> &args, const ChildLimits &limits) {
  std::vector<std::string> argv{PNMPI_PATCH_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, limits);
}

std::vector<std::string> readelf_symbols(const std::string &path) {
  const CommandResult r = run({READELF, "--dyn-syms", "-W", path});
  if (r.status != 0)
    throw std::runtime_error("readelf failed on " + path + ": " + r.err);
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(words),
                               std::istream_iterator<std::string>()};
    if (w.size() < 7 || w[0].back() != ':' || w[0] == "Num:")
      continue;
    std::string name = w.size() > 7 && w[3] != "SECTION" ? w[7] : "";
    lines.push_back(w[6] + " " + name);
  }
  return lines;
}

std::vector<std::string> expected_symbols(const ElfObject &object, const RenamePlan *plan) {
  std::vector<std::string> lines;
  for (const DynSymbol &s : object.symbols()) {
    std::string name = s.type() == STT_SECTION ? "" : s.name;
    std::uint16_t version = s.version_index;
    if (plan)
      for (const Rename &r : plan->renames)
        if (r.symbol == s.index) {
          name = r.to;
          version = r.new_version_index;
        }
    if (version >= 2 && !s.version.empty())
      name += (s.defined() ? "@@" : "@") + s.version;
    std::string ndx = s.shndx == SHN_UNDEF ? "UND"
                      : s.shndx == SHN_ABS ? "ABS"
                                           : std::to_string(s.shndx);
    lines.push_back(ndx + " " + name);
  }
  return lines;
}

std::string elflint(const std::string &path) {
  const CommandResult r = run({ELFLINT, "--gnu-ld", path});
  std::string text = r.out + r.err;
  for (std::size_t at; (at = text.find(path)) != std::string::npos;)
    text.replace(at, path.size(), "FILE");
  return text;
}

ElfObject patch_in_memory(const ElfObject &object, RenamePlan &plan, const PlanOptions &options) {
  plan = plan_renames(object, options);
  const PatchedImage image = apply_renames(object, plan);
  ElfObject after = ElfObject::parse(image.bytes, object.label() + " (patched)");
  check_patched(object, plan, image, after);
  return after;
}

Elf64Editor::Elf64Editor(Bytes &bytes) : m_bytes(bytes) {
  if (bytes.size() < sizeof(Elf64_Ehdr) || bytes[EI_CLASS] != ELFCLASS64 ||
      bytes[EI_DATA] != ELFDATA2LSB)
    throw std::runtime_error("Elf64Editor needs an ELF64 little-endian image");
}

Elf64_Shdr Elf64Editor::shdr(std::size_t index) const {
  return get<Elf64_Shdr>(ehdr().e_shoff + index * sizeof(Elf64_Shdr));
}

void Elf64Editor::set_shdr(std::size_t index, const Elf64_Shdr &s) {
  set(ehdr().e_shoff + index * sizeof(Elf64_Shdr), s);
}

Elf64_Phdr Elf64Editor::phdr(std::size_t index) const {
  return get<Elf64_Phdr>(ehdr().e_phoff + index * sizeof(Elf64_Phdr));
}

void Elf64Editor::set_phdr(std::size_t index, const Elf64_Phdr &p) {
  set(ehdr().e_phoff + index * sizeof(Elf64_Phdr), p);
}

std::size_t Elf64Editor::section(const std::string &name) const {
  const Elf64_Ehdr h = ehdr();
  const Elf64_Shdr names = shdr(h.e_shstrndx);
  for (std::size_t i = 1; i < h.e_shnum; ++i) {
    const char *n =
        reinterpret_cast<const char *>(m_bytes.data()) + names.sh_offset + shdr(i).sh_name;
    if (name == n)
      return i;
  }
  throw std::runtime_error("no section " + name);
}

std::size_t Elf64Editor::phdr_index(std::uint32_t type) const {
  for (std::size_t i = 0; i < ehdr().e_phnum; ++i)
    if (phdr(i).p_type == type)
      return i;
  throw std::runtime_error("no program header of type " + std::to_string(type));
}

std::uint64_t Elf64Editor::dynamic_entry(std::int64_t tag) const {
  const Elf64_Shdr dyn = shdr(section(".dynamic"));
  for (std::uint64_t off = dyn.sh_offset; off < dyn.sh_offset + dyn.sh_size;
       off += sizeof(Elf64_Dyn))
    if (get<Elf64_Dyn>(off).d_tag == tag)
      return off;
  throw std::runtime_error("no dynamic tag " + std::to_string(tag));
}

} // namespace pnmpi::test

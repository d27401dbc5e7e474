// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include <gtest/gtest.h>

#include <algorithm>
#include <dlfcn.h>
#include <elf.h>
#include <fstream>
#include <iterator>
#include <link.h>
#include <sys/stat.h>

#include "elf_image.h"
#include "elf_slide.h"
#include "error.h"
#include "pnmpi_test_config.h"

namespace pnmpi {
namespace {

std::vector<unsigned char> read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string write_file(const std::string &name, const std::vector<unsigned char> &bytes) {
  ::mkdir(PNMPI_TEST_SCRATCH_DIR, 0755);
  const std::string path = std::string(PNMPI_TEST_SCRATCH_DIR) + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char *>(bytes.data()), static_cast<long>(bytes.size()));
  return path;
}

std::uintptr_t base_of(void *handle) {
  link_map *map = nullptr;
  dlinfo(handle, RTLD_DI_LINKMAP, &map);
  return map->l_addr;
}

TEST(ElfSlide, SlidCopiesLoadRunAndMoveEverySymbolByTheSlide) {
  const std::vector<unsigned char> original = read_file(PNMPI_TEST_SLIDE_FIXTURE);
  std::string why_not;
  const std::vector<std::uint64_t> amounts = slide_amounts(original, why_not);
  // How many amounts fit depends on the slack the linker left between segments (fewer in a
  // sanitizer build); any non-empty list proves the slider.
  ASSERT_FALSE(amounts.empty()) << why_not;
  void *first = dlopen(PNMPI_TEST_SLIDE_FIXTURE, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(first, nullptr) << dlerror();
  const auto offset =
      reinterpret_cast<std::uintptr_t>(dlsym(first, "slide_fixture_check")) - base_of(first);
  for (std::size_t i : {std::size_t(0), amounts.size() / 2, amounts.size() - 1}) {
    const std::uint64_t delta = amounts[i];
    EXPECT_EQ(delta % 64, 0u);
    const std::vector<unsigned char> slid = slide_image(original, delta);
    EXPECT_EQ(slid.size(), original.size() + delta);
    std::vector<unsigned char> copy;
    copy_image(original, delta, copy);
    EXPECT_LT(copy.size(), slid.size()) << "no section headers, no symtab";
    EXPECT_TRUE(std::equal(copy.begin() + 64, copy.end(), slid.begin() + 64))
        << "the copy is the slid image's loadable part";
    const std::string path = write_file("slid-" + std::to_string(delta) + ".so", copy);
    void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(h, nullptr) << delta << ": " << dlerror();
    auto check = reinterpret_cast<int (*)()>(dlsym(h, "slide_fixture_check"));
    ASSERT_NE(check, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(check) - base_of(h), offset + delta);
    EXPECT_EQ(check(), 0) << "slid by " << delta;
    EXPECT_EQ(check(), 5) << "a second call sees its own counter at 7";
  }
  auto check = reinterpret_cast<int (*)()>(dlsym(first, "slide_fixture_check"));
  EXPECT_EQ(check(), 0) << "the original's state is untouched by the copies";
}

TEST(ElfSlide, ReadersSeeTheSameModuleShiftedByTheSlide) {
  const std::vector<unsigned char> original = read_file(PNMPI_TEST_SLIDE_FIXTURE);
  const char *const names[] = {"MPI_Send"};
  const RoutineIndex routines(names, 1);
  std::string why_not;
  const std::vector<std::uint64_t> amounts = slide_amounts(original, why_not);
  ASSERT_FALSE(amounts.empty()) << why_not;
  const std::uint64_t delta = amounts.back();
  const ElfImage a = read_elf_image(original, "a", routines);
  const ElfImage b = read_elf_image(slide_image(original, delta), "b", routines);
  ASSERT_EQ(a.code.size(), b.code.size());
  for (std::size_t i = 0; i < a.code.size(); ++i)
    EXPECT_EQ(b.code[i].begin, a.code[i].begin + delta);
  EXPECT_EQ(b.relro.begin, a.relro.begin + delta);
}

TEST(ElfSlide, RefusesWhatItCannotSlideSafely) {
  std::string why_not;
  const std::string text = "not an elf";
  EXPECT_TRUE(slide_amounts({text.begin(), text.end()}, why_not).empty());
  EXPECT_FALSE(why_not.empty());

  std::vector<unsigned char> stripped = read_file(PNMPI_TEST_SLIDE_FIXTURE);
  reinterpret_cast<ElfW(Ehdr) *>(stripped.data())->e_shoff = 0;
  why_not.clear();
  EXPECT_TRUE(slide_amounts(stripped, why_not).empty());
  EXPECT_EQ(why_not, "no section headers (stripped with sstrip?)");
  EXPECT_THROW(slide_image(stripped, 64), Error);

  const std::vector<unsigned char> original = read_file(PNMPI_TEST_SLIDE_FIXTURE);
  EXPECT_THROW(slide_image(original, 65), Error) << "not a multiple of the cache line";
  EXPECT_THROW(slide_image(original, 4096), Error) << "not below the page size";
}

} // namespace
} // namespace pnmpi

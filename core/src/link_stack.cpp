// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "link_stack.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

#include "error.h"
#include "log.h"

namespace pnmpi {

std::uintptr_t LinkStacks::next_after(int stack, int layer, unsigned routine,
                                      std::uintptr_t bottom) const {
  const Chain c = chain(stack, routine);
  auto it = std::upper_bound(c.begin(), c.end(), layer,
                             [](int l, const Entry &e) { return l < e.layer; });
  return it == c.end() ? bottom : it->address;
}

LinkStacks build_link_stacks(const std::vector<LayerView> &layers, unsigned routines, int stacks,
                             const std::vector<std::uintptr_t> &bottom) {
  LinkStacks ls;
  ls.routines = routines;
  ls.heads.assign(stacks, bottom);
  const auto slot = [&](const LayerView &layer, const ElfImage::Wrapper &w) {
    return static_cast<std::size_t>(layer.stack) * routines + w.id;
  };
  ls.starts.assign(static_cast<std::size_t>(stacks) * routines + 1, 0);
  for (const LayerView &layer : layers)
    for (const ElfImage::Wrapper &w : layer.image->wrappers)
      ++ls.starts[slot(layer, w) + 1];
  for (std::size_t i = 1; i < ls.starts.size(); ++i)
    ls.starts[i] += ls.starts[i - 1];
  ls.entries.resize(ls.starts.back());
  std::vector<std::size_t> fill(ls.starts.begin(), ls.starts.end() - 1);
  for (int i = 0; i < static_cast<int>(layers.size()); ++i) {
    const LayerView &layer = layers[i];
    for (const ElfImage::Wrapper &w : layer.image->wrappers) {
      const std::size_t at = slot(layer, w);
      const std::uintptr_t address = layer.base + w.value;
      if (fill[at] == ls.starts[at])
        ls.heads[layer.stack][w.id] = address;
      ls.entries[fill[at]++] = {i, address};
    }
  }
  return ls;
}

namespace {

/// Makes a layer's RELRO pages writable for as long as it lives, then read-only again.
/// These are exactly the pages the dynamic linker made read-only: both ends rounded down,
/// so a partial last page (a slid copy's) was left writable and is left alone.
class RelroWindow {
public:
  RelroWindow(std::uintptr_t begin, std::uintptr_t end) {
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    m_begin = begin & ~(page - 1);
    m_end = end & ~(page - 1);
    if (m_begin == m_end)
      return;
    if (::mprotect(reinterpret_cast<void *>(m_begin), m_end - m_begin, PROT_READ | PROT_WRITE))
      throw Error(std::string("cannot make relocated data writable to bind its calls: ") +
                  std::strerror(errno));
  }
  ~RelroWindow() {
    if (m_begin != m_end)
      ::mprotect(reinterpret_cast<void *>(m_begin), m_end - m_begin, PROT_READ);
  }
  RelroWindow(const RelroWindow &) = delete;
  RelroWindow &operator=(const RelroWindow &) = delete;

private:
  std::uintptr_t m_begin = 0, m_end = 0;
};

/// Writes `target_of(site)` into every call site of one loaded object, RELRO pages included.
template <typename TargetOf>
void write_sites(std::uintptr_t base, const ElfImage &image, TargetOf target_of,
                 bool relro_writable = false) {
  bool needs_relro = false;
  for (const ElfImage::Site &site : image.sites)
    needs_relro |=
        !relro_writable && site.offset >= image.relro.begin && site.offset < image.relro.end;
  RelroWindow window(needs_relro ? base + image.relro.begin : 0,
                     needs_relro ? base + image.relro.end : 0);
  for (const ElfImage::Site &site : image.sites) {
    std::uintptr_t target = target_of(site);
    if (site.plus_addend)
      target += static_cast<std::uintptr_t>(site.addend);
    std::memcpy(reinterpret_cast<void *>(base + site.offset), &target, sizeof target);
  }
}

} // namespace

void bind_imports(std::uintptr_t base, const ElfImage &image,
                  const std::vector<std::uintptr_t> &target) {
  write_sites(base, image, [&](const ElfImage::Site &site) { return target[site.id]; });
}

void bind_call_sites(const std::vector<LayerView> &layers, std::size_t stack_count,
                     const std::vector<std::uintptr_t> &bottom, const std::vector<bool> &to_bottom,
                     const std::vector<std::uintptr_t> &top) {
  // Walk the layers from the last to the first, keeping for each stack the address a call
  // to each routine must reach from here: one pass, O(sites + wrappers).
  std::vector<std::vector<std::uintptr_t>> next(stack_count, bottom);
  for (int i = static_cast<int>(layers.size()) - 1; i >= 0; --i) {
    const LayerView &layer = layers[i];
    std::vector<std::uintptr_t> &reach = next[layer.stack];
    write_sites(
        layer.base, *layer.image,
        [&](const ElfImage::Site &site) {
          if (site.public_name)
            return top[site.id];
          return to_bottom[site.id] ? bottom[site.id] : reach[site.id];
        },
        layer.relro_writable);
    debug(4, "layer " + std::to_string(i) + ": bound " + std::to_string(layer.image->sites.size()) +
                 " call sites");
    for (const ElfImage::Wrapper &w : layer.image->wrappers)
      reach[w.id] = layer.base + w.value;
  }
}

} // namespace pnmpi

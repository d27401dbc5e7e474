// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include <gtest/gtest.h>

#include <cstring>

#include "link_stack.h"

namespace pnmpi {
namespace {

// Three routines (0, 1, 2); bottom[r] = 1000 + r stands for MPI's PMPI_X, top[r] = 2000 + r
// for the chain's nested entry MPI_X.
const std::vector<std::uintptr_t> kBottom{1000, 1001, 1002};
const std::vector<std::uintptr_t> kTop{2000, 2001, 2002};

/// A fake image: wraps the given routines at values 10*(routine+1), and has one call site
/// (an 8-byte slot) per called routine, at offset 8*i.
ElfImage image(std::vector<unsigned> wraps, std::vector<unsigned> calls) {
  ElfImage img;
  for (unsigned r : wraps)
    img.wrappers.push_back({r, 10u * (r + 1)});
  for (std::size_t i = 0; i < calls.size(); ++i)
    img.sites.push_back({calls[i], 8 * i, 0, 0, false});
  return img;
}

TEST(LinkStack, HeadsAndChainsFollowConfigOrderPerRoutine) {
  const ElfImage a = image({0, 1}, {}), b = image({1}, {}), c = image({0}, {});
  const std::vector<LayerView> layers{{0, 100000, &a}, {0, 200000, &b}, {0, 300000, &c}};
  const LinkStacks ls = build_link_stacks(layers, 3, 1, kBottom);
  EXPECT_EQ(ls.heads[0][0], 100010u);
  EXPECT_EQ(ls.heads[0][1], 100020u);
  EXPECT_EQ(ls.heads[0][2], 1002u) << "a routine nobody wraps starts at MPI";
  ASSERT_EQ(ls.chain(0, 0).size(), 2u);
  EXPECT_EQ(ls.chain(0, 0)[1].layer, 2);
  EXPECT_EQ(ls.next_after(0, 0, 0, kBottom[0]), 300010u) << "skips b, which does not wrap 0";
  EXPECT_EQ(ls.next_after(0, 0, 1, kBottom[1]), 200020u);
  EXPECT_EQ(ls.next_after(0, 1, 1, kBottom[1]), 1001u);
  EXPECT_EQ(ls.next_after(0, 2, 0, kBottom[0]), 1000u);
  EXPECT_EQ(ls.next_after(0, -1, 0, kBottom[0]), 100010u);
}

TEST(LinkStack, StacksAreIndependent) {
  const ElfImage a = image({0}, {}), b = image({0}, {});
  const std::vector<LayerView> layers{{1, 100000, &a}, {0, 200000, &b}};
  const LinkStacks ls = build_link_stacks(layers, 3, 2, kBottom);
  EXPECT_EQ(ls.heads[0][0], 200010u);
  EXPECT_EQ(ls.heads[1][0], 100010u);
  EXPECT_EQ(ls.next_after(1, 0, 0, kBottom[0]), 1000u) << "b is in another stack";
}

TEST(LinkStack, BindingPointsEachCallSiteAtTheNextWrapperInItsStack) {
  // Real memory stands in for three loaded modules; each has call-site slots at offset 0..
  alignas(8) unsigned char mem[3][64];
  std::memset(mem, 0, sizeof mem);
  auto base = [&](int i) { return reinterpret_cast<std::uintptr_t>(mem[i]); };
  auto slot = [&](int i, int n) {
    std::uintptr_t v;
    std::memcpy(&v, mem[i] + 8 * n, sizeof v);
    return v;
  };
  // Layer 0 wraps 0 and 1 and calls 0, 1, 2; layer 1 wraps 1 and calls 0 and 1; layer 2
  // wraps 0 and calls 0 and 2 (routine 2 is "to bottom", as MPI_Pcontrol is).
  ElfImage a = image({0, 1}, {0, 1, 2}), b = image({1}, {0, 1}), c = image({0}, {0, 2});
  const std::vector<LayerView> layers{{0, base(0), &a}, {0, base(1), &b}, {0, base(2), &c}};
  // Wrapper values must point inside each fake module for a real loader; here they only
  // have to be distinct.
  const LinkStacks ls = build_link_stacks(layers, 3, 1, kBottom);
  bind_call_sites(layers, ls.heads.size(), kBottom, {false, false, true}, kTop);
  EXPECT_EQ(slot(0, 0), base(2) + 10) << "layer 0 -> routine 0 -> layer 2";
  EXPECT_EQ(slot(0, 1), base(1) + 20) << "layer 0 -> routine 1 -> layer 1";
  EXPECT_EQ(slot(0, 2), 1002u) << "to-bottom routine goes straight down";
  EXPECT_EQ(slot(1, 0), base(2) + 10);
  EXPECT_EQ(slot(1, 1), 1001u) << "last wrapper of routine 1 reaches MPI";
  EXPECT_EQ(slot(2, 0), 1000u);
  EXPECT_EQ(slot(2, 1), 1002u);
}

TEST(LinkStack, CallsByPublicNameEnterTheChainAtTheTop) {
  // A layer that wraps 0 and calls XMPI_0 (next layer) and MPI_0 (its public name, e.g. a
  // tool's MPI_Wtime inside its wrapper): only the first goes down.
  alignas(8) unsigned char mem[2][16] = {};
  ElfImage a = image({0}, {0}), b = image({0}, {});
  a.sites.push_back({0, 8, 0, 0, false, true});
  const std::vector<LayerView> layers{{0, reinterpret_cast<std::uintptr_t>(mem[0]), &a},
                                      {0, reinterpret_cast<std::uintptr_t>(mem[1]), &b}};
  const LinkStacks ls = build_link_stacks(layers, 3, 1, kBottom);
  bind_call_sites(layers, ls.heads.size(), kBottom, {false, false, false}, kTop);
  std::uintptr_t next, public_name;
  std::memcpy(&next, mem[0], 8);
  std::memcpy(&public_name, mem[0] + 8, 8);
  EXPECT_EQ(next, reinterpret_cast<std::uintptr_t>(mem[1]) + 10);
  EXPECT_EQ(public_name, 2000u);
}

TEST(LinkStack, AddendIsAddedWhereTheRelocationSaysSo) {
  alignas(8) unsigned char mem[16] = {};
  ElfImage img;
  img.sites.push_back({0, 0, 0, 5, true});
  img.sites.push_back({0, 8, 0, 5, false});
  const std::vector<LayerView> layers{{0, reinterpret_cast<std::uintptr_t>(mem), &img}};
  const LinkStacks ls = build_link_stacks(layers, 3, 1, kBottom);
  bind_call_sites(layers, ls.heads.size(), kBottom, {false, false, false}, kTop);
  std::uintptr_t v0, v1;
  std::memcpy(&v0, mem, 8);
  std::memcpy(&v1, mem + 8, 8);
  EXPECT_EQ(v0, 1005u);
  EXPECT_EQ(v1, 1000u);
}

} // namespace
} // namespace pnmpi

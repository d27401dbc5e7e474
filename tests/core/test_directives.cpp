// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Every configuration directive the user's guide documents: what it means, and the exact
// message for each way of getting it wrong.

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "config.h"
#include "config_errors.h"
#include "error.h"
#include "pnmpi_test_config.h"

namespace pnmpi {
namespace {

TEST(Stack, ModulesAfterAStackLineBelongToIt) {
  const Config c = parse_config("module a\n"
                                "stack small\n"
                                "module b\n"
                                "argument k 1\n"
                                "module c\n"
                                "stack large   # comment\n"
                                "module d\n",
                                "conf");
  ASSERT_EQ(c.stacks, (std::vector<std::string>{"default", "small", "large"}));
  EXPECT_EQ(c.stack_lines, (std::vector<int>{0, 2, 6}));
  ASSERT_EQ(c.modules.size(), 4u);
  EXPECT_EQ(c.modules[0].stack, 0);
  EXPECT_EQ(c.modules[1].stack, 1);
  EXPECT_EQ(*c.modules[1].argument("k"), "1");
  EXPECT_EQ(c.modules[2].stack, 1);
  EXPECT_EQ(c.modules[3].stack, 2);
  EXPECT_EQ(c.stack_index("large"), 2);
  EXPECT_EQ(c.stack_index("default"), 0);
  EXPECT_EQ(c.stack_index("nope"), -1);
}

TEST(Stack, DefaultMayBeNamedWhileItIsTheCurrentStack) {
  const Config c = parse_config("stack default\nmodule a\nstack other\nmodule b\n", "conf");
  EXPECT_EQ(c.stacks, (std::vector<std::string>{"default", "other"}));
  EXPECT_EQ(c.stack_lines[0], 1);
  EXPECT_EQ(c.modules[0].stack, 0);
  EXPECT_EQ(c.modules[1].stack, 1);
  // Naming it after some of its modules is still the same section.
  EXPECT_EQ(parse_config("module a\nstack default\nmodule b\n", "conf").modules[1].stack, 0);
}

TEST(Stack, AnEmptyStackIsAllowed) {
  const Config c = parse_config("module a\nstack spare\n", "conf");
  EXPECT_EQ(c.stacks.size(), 2u);
  EXPECT_EQ(c.modules.size(), 1u);
}

TEST(Stack, Errors) {
  EXPECT_EQ(config_error("stack\n"), "conf:1: 'stack' needs a stack name, as in 'stack small'");
  EXPECT_EQ(config_error("stack a b\n"), "conf:1: 'stack' takes one name; unexpected 'b'");
  EXPECT_EQ(config_error("stack a\nmodule x\nstack b\nstack a\n"),
            "conf:4: stack 'a' started twice (first on line 1): each stack is one section; "
            "list its modules together");
  EXPECT_EQ(config_error("module x\nstack a\nmodule y\nstack default\nmodule z\n"),
            "conf:4: stack 'default' cannot be reopened after 'stack a' on line 2: each stack "
            "is one section; move these modules above it");
  EXPECT_EQ(config_error("stack default\nstack default\n"),
            "conf:2: stack 'default' started twice (first on line 1)");
  EXPECT_EQ(config_error("module x\nstack a\nargument k v\n"),
            "conf:3: 'argument' after 'stack a' on line 2 and before any 'module' of it: an "
            "argument belongs to the module above it");
  EXPECT_EQ(config_error("module x\nstack a\npcontrol off\n"),
            "conf:3: 'pcontrol' after 'stack a' on line 2 and before any 'module' of it: it "
            "says whether the module above it receives MPI_Pcontrol");
}

TEST(Pcontrol, OnByDefaultAndPerModule) {
  const Config c = parse_config("module a\nmodule b\npcontrol off\nmodule c\npcontrol on\n"
                                "module d\npcontrol\n",
                                "conf");
  EXPECT_TRUE(c.modules[0].pcontrol);
  EXPECT_EQ(c.modules[0].pcontrol_line, 0);
  EXPECT_FALSE(c.modules[1].pcontrol);
  EXPECT_EQ(c.modules[1].pcontrol_line, 3);
  EXPECT_TRUE(c.modules[2].pcontrol);
  EXPECT_TRUE(c.modules[3].pcontrol); // a bare `pcontrol` is `on`, as in PnMPI
}

TEST(Pcontrol, Errors) {
  EXPECT_EQ(config_error("pcontrol on\n"), "conf:1: 'pcontrol' before any 'module': it says "
                                           "whether the module above it receives MPI_Pcontrol");
  EXPECT_EQ(config_error("module a\npcontrol maybe\n"),
            "conf:2: 'pcontrol' takes 'on' or 'off', not 'maybe'");
  EXPECT_EQ(config_error("module a\npcontrol on off\n"),
            "conf:2: 'pcontrol' takes one word, 'on' or 'off'; unexpected 'off'");
  EXPECT_EQ(config_error("module a\npcontrol on\n\npcontrol off\n"),
            "conf:4: 'pcontrol' given twice to module 'a' (first on line 2)");
}

TEST(GlobalPcontrol, Modes) {
  EXPECT_EQ(parse_config("", "conf").pcontrol.describe(), "int");
  EXPECT_EQ(parse_config("", "conf").pcontrol.line, 0);
  for (const char *mode : {"int", "on", "off"}) {
    const Config c = parse_config(std::string("module a\nglobalpcontrol ") + mode + "\n", "conf");
    EXPECT_EQ(c.pcontrol.describe(), mode);
    EXPECT_EQ(c.pcontrol.line, 2);
  }
  EXPECT_EQ(parse_config("globalpcontrol on\n", "conf").pcontrol.mode, PcontrolPolicy::Mode::On);
  EXPECT_EQ(parse_config("globalpcontrol off\n", "conf").pcontrol.mode, PcontrolPolicy::Mode::Off);
  const Config t = parse_config("globalpcontrol typed 4042 pointer\n", "conf");
  EXPECT_EQ(t.pcontrol.mode, PcontrolPolicy::Mode::Typed);
  EXPECT_EQ(t.pcontrol.level, 4042);
  EXPECT_EQ(t.pcontrol.type, PcontrolPolicy::Type::Pointer);
  EXPECT_EQ(t.pcontrol.describe(), "typed 4042 pointer");
  for (const char *type : {"int", "long", "double", "pointer"})
    EXPECT_EQ(
        parse_config(std::string("globalpcontrol typed -3 ") + type, "conf").pcontrol.describe(),
        std::string("typed -3 ") + type);
}

TEST(GlobalPcontrol, Errors) {
  EXPECT_EQ(config_error("globalpcontrol\n"),
            "conf:1: 'globalpcontrol' needs a mode: 'int', 'on', 'off' or 'typed LEVEL TYPE'");
  EXPECT_EQ(config_error("globalpcontrol sometimes\n"),
            "conf:1: 'globalpcontrol' mode must be 'int', 'on', 'off' or 'typed LEVEL TYPE', "
            "not 'sometimes'");
  for (const char *mode : {"pmpi", "pnmpi", "mixed"})
    EXPECT_EQ(config_error(std::string("globalpcontrol ") + mode + "\n"),
              std::string("conf:1: globalpcontrol '") + mode +
                  "' is not supported: pnmpi cannot forward MPI_Pcontrol's variable argument "
                  "list; use 'typed LEVEL TYPE' to pass one typed argument at one level");
  EXPECT_EQ(config_error("globalpcontrol on now\n"),
            "conf:1: 'globalpcontrol on' takes no more words; unexpected 'now'");
  EXPECT_EQ(config_error("globalpcontrol typed 5\n"),
            "conf:1: 'globalpcontrol typed' needs a level and a type, as in 'globalpcontrol "
            "typed 4042 pointer'");
  EXPECT_EQ(config_error("globalpcontrol typed five int\n"),
            "conf:1: 'globalpcontrol typed': the level must be a whole number, not 'five'");
  EXPECT_EQ(config_error("globalpcontrol typed 99999999999 int\n"),
            "conf:1: 'globalpcontrol typed': the level must be a whole number, not "
            "'99999999999'");
  EXPECT_EQ(config_error("globalpcontrol typed 5 float\n"),
            "conf:1: 'globalpcontrol typed': the type must be 'int', 'long', 'double' or "
            "'pointer', not 'float'");
  EXPECT_EQ(config_error("globalpcontrol typed 5 int extra\n"),
            "conf:1: 'globalpcontrol typed' takes a level and a type; unexpected 'extra'");
  EXPECT_EQ(config_error("globalpcontrol int\nmodule a\nglobalpcontrol on\n"),
            "conf:3: 'globalpcontrol' given twice (first on line 1)");
}

TEST(UnknownDirective, ListsEveryDirective) {
  EXPECT_EQ(config_error("module a\nstacks b\n"),
            "conf:2: unknown directive 'stacks' (expected 'module', 'argument', 'pcontrol', "
            "'stack' or 'globalpcontrol')");
}

TEST(ExampleFile, EveryDirectiveIsThereAndParses) {
  const std::string path = std::string(PNMPI_TEST_SOURCE_DIR) + "/.pnmpi-conf.example";
  const Config c = load_config_file(path);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char *directive :
       {"\nmodule ", "\nargument ", "\npcontrol ", "\nstack ", "\nglobalpcontrol "})
    EXPECT_NE(text.find(directive), std::string::npos) << "no live '" << directive + 1 << "' line";
  EXPECT_GE(c.stacks.size(), 2u);
  EXPECT_NE(c.pcontrol.line, 0);
}

} // namespace
} // namespace pnmpi

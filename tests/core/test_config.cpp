// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config_errors.h"
#include "dispatch.h"
#include "error.h"
#include "log.h"
#include "pnmpi_test_config.h"

namespace pnmpi {
namespace {

TEST(Config, ModulesArgumentsAndComments) {
  const Config c = parse_config("# a comment\n\nmodule empty\n"
                                "module delay   # trailing comment\n"
                                "argument delay-us 250\n"
                                "argument note  two   words\n"
                                "\tmodule /abs/path/tool.so\r\n",
                                "conf");
  ASSERT_EQ(c.modules.size(), 3u);
  EXPECT_EQ(c.modules[0].name, "empty");
  EXPECT_EQ(c.modules[0].line, 3);
  EXPECT_TRUE(c.modules[0].arguments.empty());
  EXPECT_EQ(c.modules[1].name, "delay");
  ASSERT_NE(c.modules[1].argument("delay-us"), nullptr);
  EXPECT_EQ(*c.modules[1].argument("delay-us"), "250");
  EXPECT_EQ(*c.modules[1].argument("note"), "two words");
  EXPECT_EQ(c.modules[1].arguments[1].line, 6);
  EXPECT_EQ(c.modules[1].argument("missing"), nullptr);
  EXPECT_EQ(c.modules[2].name, "/abs/path/tool.so");
  EXPECT_EQ(c.modules[2].stack, 0);
  EXPECT_EQ(c.path, "conf");
}

TEST(Config, EmptyTextHasNoModules) {
  EXPECT_TRUE(parse_config("", "conf").modules.empty());
  EXPECT_TRUE(parse_config("\n# only a comment\n   \n", "conf").modules.empty());
}

TEST(Config, ErrorsNameFileLineAndToken) {
  EXPECT_EQ(config_error("module a\nmodul b\n"),
            "conf:2: unknown directive 'modul' "
            "(expected 'module', 'argument', 'pcontrol', 'stack' or 'globalpcontrol')");
  EXPECT_EQ(config_error("module\n"), "conf:1: 'module' needs a module name, as in 'module empty'");
  EXPECT_EQ(config_error("module a b\n"),
            "conf:1: 'module' takes one name; unexpected 'b' (give module arguments on "
            "'argument' lines below it)");
  EXPECT_EQ(config_error("argument k v\n"),
            "conf:1: 'argument' before any 'module': an argument belongs to the module above it");
  EXPECT_EQ(config_error("module a\nargument\n"),
            "conf:2: 'argument' needs a key and a value, as in 'argument delay-us 100'");
  EXPECT_EQ(config_error("module a\nargument k\n"), "conf:2: 'argument' 'k' needs a value");
  EXPECT_EQ(config_error("module a\nargument k 1\n\nargument k 2\n"),
            "conf:4: argument 'k' given twice to module 'a' (first on line 2)");
  EXPECT_EQ(config_error(std::string("module a\0b\n", 11)),
            "conf:1: NUL byte in the configuration: this is not a text file");
}

TEST(Config, SameKeyOnDifferentModulesIsFine) {
  const Config c = parse_config("module a\nargument k 1\nmodule a\nargument k 2\n", "conf");
  EXPECT_EQ(*c.modules[0].argument("k"), "1");
  EXPECT_EQ(*c.modules[1].argument("k"), "2");
}

TEST(Config, QuotedWordsHoldBlanksAndHashes) {
  const Config c = parse_config("module \"/opt/my tools/x.so\"  # a comment\n"
                                "argument note \"two  words\" and \"# not a comment\"\n"
                                "argument empty \"\"\n"
                                "stack \"a b\"\n"
                                "module \"plain\"\n",
                                "conf");
  ASSERT_EQ(c.modules.size(), 2u);
  EXPECT_EQ(c.modules[0].name, "/opt/my tools/x.so");
  EXPECT_EQ(*c.modules[0].argument("note"), "two  words and # not a comment");
  EXPECT_EQ(*c.modules[0].argument("empty"), "");
  EXPECT_EQ(c.stacks[1], "a b");
  EXPECT_EQ(c.modules[1].name, "plain");
}

TEST(Config, QuotingErrorsNameTheLine) {
  EXPECT_EQ(config_error("module a\nmodule \"/opt/my tools/x.so\n"),
            "conf:2: unterminated '\"': a quoted word ends with '\"' on the same line");
  EXPECT_EQ(config_error("module a\"b\"\n"),
            "conf:1: '\"' inside the word 'a\"...': quote the whole word, as in "
            "\"/opt/my tools/x.so\"");
  EXPECT_EQ(config_error("module \"a\"b\n"),
            "conf:1: a quoted word must be followed by a blank, not 'b'");
  EXPECT_EQ(config_error("module \"\"\n"),
            "conf:1: 'module' needs a module name, not an empty one");
  EXPECT_EQ(config_error("stack \"\"\n"), "conf:1: 'stack' needs a stack name, not an empty one");
}

TEST(Config, LongTokensAreShortenedInMessages) {
  const std::string name(100000, 'x');
  EXPECT_EQ(config_error("module a " + name + "\n"),
            "conf:1: 'module' takes one name; unexpected '" + std::string(90, 'x') +
                "...(100000 bytes)..." + std::string(90, 'x') +
                "' (give module arguments on 'argument' lines below it)");
  EXPECT_EQ(shown("short"), "short");
  EXPECT_EQ(shown(std::string(200, 'y')), std::string(200, 'y'));
  // The middle goes: the start and the end of a path stay, 200 bytes in all.
  const std::string path = "/a" + std::string(3996, 'b') + "/end.so";
  const std::string cut = shown(path);
  EXPECT_EQ(cut,
            "/a" + std::string(89, 'b') + "...(4005 bytes)..." + std::string(84, 'b') + "/end.so");
  EXPECT_EQ(cut.size(), 200u);
  EXPECT_EQ(shown(cut), cut);
  // A cut never splits a UTF-8 character: each e-acute stays whole or goes.
  std::string accents;
  for (int i = 0; i < 300; ++i)
    accents += "\xc3\xa9";
  const std::string cut_accents = shown(accents);
  EXPECT_EQ(cut_accents.substr(0, 90), accents.substr(0, 90));
  EXPECT_EQ(cut_accents.find("...(600 bytes)..."), 90u);
  EXPECT_EQ(cut_accents.size(), 90u + 17u + 92u);
  // A FILE:LINE prefix shows its file the same way.
  EXPECT_EQ(where(path, 7), cut + ":7");
}

/// CPU seconds this thread spends parsing `lines` lines made by `line(i)`: the thread's own
/// CPU clock, which does not advance while the thread waits for a core, so a busy machine
/// does not change it the way it changes wall time.
template <typename Line> double parse_seconds(int lines, Line line) {
  std::string text = "module a\n";
  for (int i = 0; i < lines; ++i)
    text += line(i);
  auto cpu_now = [] {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  const double start = cpu_now();
  const Config c = parse_config(text, "conf");
  EXPECT_EQ(c.modules.size(), 1u);
  return cpu_now() - start;
}

TEST(Config, ManyArgumentLinesParseInLinearTime) {
  auto line = [](int i) { return "argument key" + std::to_string(i) + " value\n"; };
  // The quickest of three runs of each, in CPU time: a ratio of the parser's own work, not a
  // bound on how long anything takes.
  double small = 1e9, large = 1e9;
  for (int run = 0; run < 3; ++run) {
    small = std::min(small, parse_seconds(20000, line));
    large = std::min(large, parse_seconds(200000, line));
  }
  // Ten times the lines: about ten times the work. A quadratic parser takes 100 times (and
  // some 50 s); the margin is wide because caches and clock rates still vary.
  EXPECT_LT(large, 40 * small + 0.5) << "20,000 lines: " << small << " s, 200,000: " << large;
}

TEST(Config, StacksAreCountedAndBounded) {
  std::string text;
  for (int i = 1; i < kMaxStacks; ++i)
    text += "stack s" + std::to_string(i) + "\nmodule a\n";
  EXPECT_EQ(parse_config(text, "conf").stacks.size(), static_cast<std::size_t>(kMaxStacks));
  const int line = 2 * (kMaxStacks - 1) + 1;
  EXPECT_EQ(config_error(text + "stack one-too-many\n"),
            "conf:" + std::to_string(line) + ": too many stacks: at most " +
                std::to_string(kMaxStacks) +
                " (each costs a table of every MPI routine on every rank)");
  EXPECT_EQ(config_error(text + "stack s7\n"),
            "conf:" + std::to_string(line) +
                ": stack 's7' started twice (first on line 13): each stack is one section; list "
                "its modules together");
}

TEST(DebugLevel, AValueThatIsNoLevelIsReportedOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("PNMPI_DEBUG", "abc", 1);
        std::_Exit(debug_level() == 0 && debug_level() == 0 ? 7 : 1);
      },
      ::testing::ExitedWithCode(7),
      "^pnmpi: warning: PNMPI_DEBUG is 'abc', not a debug level \\(a whole number, 0 to 4\\); "
      "debug output stays off\n$");
  EXPECT_EXIT(
      {
        ::setenv("PNMPI_DEBUG", "12", 1);
        std::_Exit(debug_level() == 4 ? 7 : 1);
      },
      ::testing::ExitedWithCode(7), "^$");
}

class ConfigDiscovery : public ::testing::Test {
protected:
  void SetUp() override {
    ::mkdir(PNMPI_TEST_SCRATCH_DIR, 0755);
    m_dir = std::string(PNMPI_TEST_SCRATCH_DIR) + "/discovery";
    ::mkdir(m_dir.c_str(), 0755);
    ::mkdir((m_dir + "/home").c_str(), 0755);
    ::mkdir((m_dir + "/cwd").c_str(), 0755);
    char buf[4096];
    m_old_cwd = ::getcwd(buf, sizeof buf);
    ASSERT_EQ(::chdir((m_dir + "/cwd").c_str()), 0);
    ::unlink(".pnmpi-conf");
    ::unlink((m_dir + "/home/.pnmpi-conf").c_str());
    const char *home = std::getenv("HOME");
    m_old_home = home ? home : "";
    ::setenv("HOME", (m_dir + "/home").c_str(), 1);
    ::unsetenv("PNMPI_CONF");
  }
  void TearDown() override {
    ::setenv("HOME", m_old_home.c_str(), 1);
    ::unsetenv("PNMPI_CONF");
    ASSERT_EQ(::chdir(m_old_cwd.c_str()), 0);
  }
  static void touch(const std::string &path) { std::ofstream(path) << "module x\n"; }
  std::string m_dir, m_old_cwd, m_old_home;
};

TEST_F(ConfigDiscovery, OrderIsEnvThenCwdThenHome) {
  EXPECT_EQ(find_config_file(ConfigSearch::from_environment()), std::nullopt);
  touch(m_dir + "/home/.pnmpi-conf");
  EXPECT_EQ(find_config_file(ConfigSearch::from_environment()), m_dir + "/home/.pnmpi-conf");
  touch(".pnmpi-conf");
  EXPECT_EQ(find_config_file(ConfigSearch::from_environment()), ".pnmpi-conf");
  touch(m_dir + "/explicit.conf");
  ::setenv("PNMPI_CONF", (m_dir + "/explicit.conf").c_str(), 1);
  EXPECT_EQ(find_config_file(ConfigSearch::from_environment()), m_dir + "/explicit.conf");
}

TEST_F(ConfigDiscovery, AFileFoundWithoutBeingNamedSaysWhereAndWhy) {
  touch(".pnmpi-conf");
  const ConfigSearch search = ConfigSearch::from_environment();
  EXPECT_EQ(describe_config_file(*find_config_file(search), search),
            "./.pnmpi-conf in the working directory " + m_dir +
                "/cwd (found there: neither PNMPI_CONF nor pnmpi-run -c names a configuration)");
  ::unlink(".pnmpi-conf");
  touch(m_dir + "/home/.pnmpi-conf");
  EXPECT_EQ(describe_config_file(*find_config_file(search), search),
            m_dir + "/home/.pnmpi-conf (found in the home directory: neither PNMPI_CONF nor "
                    "pnmpi-run -c names a configuration, and the working directory has no "
                    ".pnmpi-conf)");
  touch(m_dir + "/explicit.conf");
  ::setenv("PNMPI_CONF", (m_dir + "/explicit.conf").c_str(), 1);
  const ConfigSearch named = ConfigSearch::from_environment();
  EXPECT_EQ(describe_config_file(*find_config_file(named), named), m_dir + "/explicit.conf");
}

TEST_F(ConfigDiscovery, MissingFileNamedByEnvIsAnError) {
  ::setenv("PNMPI_CONF", "/nonexistent/x.conf", 1);
  try {
    find_config_file(ConfigSearch::from_environment());
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "PNMPI_CONF is set to '/nonexistent/x.conf', which is not a "
                           "readable file; fix the path or unset PNMPI_CONF");
  }
}

TEST_F(ConfigDiscovery, LoadFileReportsItsPath) {
  std::ofstream(m_dir + "/bad.conf") << "module a\nbogus\n";
  try {
    load_config_file(m_dir + "/bad.conf");
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), m_dir + "/bad.conf:2: unknown directive 'bogus' "
                                             "(expected 'module', 'argument', 'pcontrol', "
                                             "'stack' or 'globalpcontrol')");
  }
}

TEST_F(ConfigDiscovery, ADotConfThatIsNoFileIsAnError) {
  ::mkdir(".pnmpi-conf", 0755);
  touch(m_dir + "/home/.pnmpi-conf");
  try {
    find_config_file(ConfigSearch::from_environment());
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), ".pnmpi-conf: is a directory, not a configuration file; remove or "
                           "rename it, or set PNMPI_CONF to the configuration to use");
  }
  ::rmdir(".pnmpi-conf");
  ::unlink((m_dir + "/home/.pnmpi-conf").c_str());
  ::mkdir((m_dir + "/home/.pnmpi-conf").c_str(), 0755);
  try {
    find_config_file(ConfigSearch::from_environment());
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              m_dir + "/home/.pnmpi-conf: is a directory, not a configuration file; remove or "
                      "rename it, or set PNMPI_CONF to the configuration to use");
  }
  ::rmdir((m_dir + "/home/.pnmpi-conf").c_str());
}

/// Files and directories with chosen owners and modes, under the scratch directory.
class Trust : public ::testing::Test {
protected:
  void SetUp() override {
    ::unsetenv("PNMPI_ALLOW_UNSAFE");
    ::mkdir(PNMPI_TEST_SCRATCH_DIR, 0755);
    m_dir = std::string(PNMPI_TEST_SCRATCH_DIR) + "/trust";
    ::mkdir(m_dir.c_str(), 0755);
    ::chmod(m_dir.c_str(), 0755);
  }
  void TearDown() override { ::unsetenv("PNMPI_ALLOW_UNSAFE"); }
  /// A config file `name` in a fresh directory `dir` (under m_dir) of mode `dir_mode`.
  std::string file(const std::string &dir, mode_t dir_mode, mode_t file_mode) {
    const std::string d = m_dir + "/" + dir;
    ::mkdir(d.c_str(), 0755);
    const std::string f = d + "/conf";
    ::unlink(f.c_str());
    std::ofstream(f) << "module x\n";
    EXPECT_EQ(::chmod(f.c_str(), file_mode), 0);
    EXPECT_EQ(::chmod(d.c_str(), dir_mode), 0);
    return f;
  }
  std::string m_dir;
};

TEST_F(Trust, OwnFilesInPrivateOrStickyDirectoriesAreTrusted) {
  EXPECT_EQ(load_error(file("private", 0755, 0644)), "(no error)");
  EXPECT_EQ(load_error(file("sticky", 01777, 0644)), "(no error)");
  EXPECT_EQ(load_error(file("readonly", 0555, 0400)), "(no error)");
}

TEST_F(Trust, WritableByOthersIsRefusedWithTheFix) {
  const std::string f = file("open-file", 0755, 0666);
  EXPECT_EQ(load_error(f), f +
                               ": not trusted: it is writable by its group and others (mode "
                               "0666), so they decide what pnmpi loads; run 'chmod go-w " +
                               f + "', or set PNMPI_ALLOW_UNSAFE=1 to accept it");
  const std::string g = file("group-file", 0755, 0620);
  EXPECT_EQ(load_error(g), g +
                               ": not trusted: it is writable by its group (mode 0620), so "
                               "they decide what pnmpi loads; run 'chmod go-w " +
                               g + "', or set PNMPI_ALLOW_UNSAFE=1 to accept it");
  const std::string d = file("open-dir", 0777, 0644);
  EXPECT_EQ(load_error(d), d + ": not trusted: its directory " + m_dir +
                               "/open-dir is writable by its group and others (mode 0777), "
                               "so they decide what pnmpi loads; run 'chmod go-w " +
                               m_dir + "/open-dir', or set PNMPI_ALLOW_UNSAFE=1 to accept it");
  // A directory further up counts as much: whoever can rename it chooses the file.
  ::chmod(m_dir.c_str(), 0757);
  const std::string up = file("under-open", 0755, 0644);
  EXPECT_EQ(load_error(up), up + ": not trusted: its directory " + m_dir +
                                " is writable by others (mode 0757), so they decide what "
                                "pnmpi loads; run 'chmod go-w " +
                                m_dir + "', or set PNMPI_ALLOW_UNSAFE=1 to accept it");
  ::setenv("PNMPI_ALLOW_UNSAFE", "1", 1);
  EXPECT_EQ(load_error(f), "(no error)");
  EXPECT_EQ(load_error(up), "(no error)");
  ::chmod(m_dir.c_str(), 0755);
}

TEST_F(Trust, ALinkInAnOpenDirectoryIsRefused) {
  const std::string target = file("private", 0755, 0644);
  const std::string open = m_dir + "/open-links";
  ::mkdir(open.c_str(), 0755);
  ::chmod(open.c_str(), 0777);
  ::unlink((open + "/conf").c_str());
  ASSERT_EQ(::symlink(target.c_str(), (open + "/conf").c_str()), 0);
  EXPECT_EQ(load_error(open + "/conf"),
            open + "/conf: not trusted: its directory " + open +
                " is writable by its group and others (mode 0777), so they decide what pnmpi "
                "loads; run 'chmod go-w " +
                open + "', or set PNMPI_ALLOW_UNSAFE=1 to accept it");
}

TEST_F(Trust, ALinkedDirectoryOnTheWayCounts) {
  // open-way/linked -> private: the file is trusted, but the way to it is not.
  const std::string target = file("private", 0755, 0644);
  const std::string open = m_dir + "/open-way";
  ::mkdir(open.c_str(), 0755);
  ::chmod(open.c_str(), 0777);
  ::unlink((open + "/linked").c_str());
  ASSERT_EQ(::symlink((m_dir + "/private").c_str(), (open + "/linked").c_str()), 0);
  EXPECT_EQ(load_error(open + "/linked/conf"),
            open + "/linked/conf: not trusted: its directory " + open +
                " is writable by its group and others (mode 0777), so they decide what pnmpi "
                "loads; run 'chmod go-w " +
                open + "', or set PNMPI_ALLOW_UNSAFE=1 to accept it");
  ::chmod(open.c_str(), 0755);
  EXPECT_EQ(load_error(open + "/linked/conf"), "(no error)");
}

TEST_F(Trust, FilesOfAnotherUserAreRefused) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to give a file to another user";
  const std::string f = file("foreign-file", 0755, 0644);
  ASSERT_EQ(::chown(f.c_str(), 4242, 4242), 0);
  EXPECT_EQ(load_error(f), f + ": not trusted: it belongs to uid 4242, not to you or root, "
                               "so that user decides what pnmpi loads; have it "
                               "owned by you or root ('chown'), or set PNMPI_ALLOW_UNSAFE=1 "
                               "to accept it");
  const std::string d = file("foreign-dir", 0755, 0644);
  ASSERT_EQ(::chown((m_dir + "/foreign-dir").c_str(), 4242, 4242), 0);
  EXPECT_EQ(load_error(d), d + ": not trusted: its directory " + m_dir +
                               "/foreign-dir belongs to uid 4242, not to you or root, "
                               "so that user decides what pnmpi loads; have it owned "
                               "by you or root ('chown'), or set PNMPI_ALLOW_UNSAFE=1 to "
                               "accept it");
  ::setenv("PNMPI_ALLOW_UNSAFE", "1", 1);
  EXPECT_EQ(load_error(f), "(no error)");
}

TEST(BitSet, SetAndTestEveryBitOfSeveralWords) {
  uint64_t words[3] = {0, 0, 0};
  for (unsigned bit : {0u, 1u, 63u, 64u, 100u, 191u})
    pnmpi_bit_set(words, bit);
  for (unsigned bit = 0; bit < 192; ++bit) {
    const bool want = bit == 0 || bit == 1 || bit == 63 || bit == 64 || bit == 100 || bit == 191;
    EXPECT_EQ(pnmpi_bit_test(words, bit), want ? 1 : 0) << bit;
  }
  EXPECT_EQ(words[0], (uint64_t(1) << 63) | 3u);
  EXPECT_EQ(words[1], (uint64_t(1) << 36) | 1u);
  EXPECT_EQ(words[2], uint64_t(1) << 63);
}

// A configuration is read only from a regular file of sane size: a FIFO never blocks, a
// device or a huge file is refused before it is read.
TEST(ConfigFile, OnlyARegularFileOfSaneSizeIsRead) {
  const std::string dir = ::testing::TempDir() + "/pnmpi-config-file";
  ::mkdir(dir.c_str(), 0700);
  const std::string fifo = dir + "/fifo.conf", huge = dir + "/huge.conf";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(load_error(fifo), "cannot read configuration " + fifo + ": it is not a regular file");
  { std::ofstream out(huge); }
  ASSERT_EQ(::truncate(huge.c_str(), (64ll << 20) + 1), 0); // sparse: no disk used
  EXPECT_EQ(load_error(huge), "cannot read configuration " + huge +
                                  ": it has 67108865 bytes, more than the 64 MiB such a file may "
                                  "have; is it the right file?");
  ::unlink(fifo.c_str());
  ::unlink(huge.c_str());
}

} // namespace
} // namespace pnmpi

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The site configuration in-process: its grammar, the one order of site and user modules,
// the executable rules, record names, and records created in a directory pnmpi-admin made
// (permissions, never following links, two jobs in the same second).

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <set>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "config.h"
#include "error.h"
#include "error_of.h"
#include "pnmpi_test_config.h"
#include "site.h"

namespace pnmpi {
namespace {

using test::error_of;

Config site(const std::string &text) {
  return parse_config(text, "/etc/pnmpi/site.conf", ConfigKind::Site);
}

std::string site_error(const std::string &text) {
  try {
    site(text);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(SiteConfig, SiteDirectives) {
  const Config c = site("records /var/log/pnmpi\noptout deny\nexclude ^/usr/bin/\n"
                        "include \"/usr/bin/lmp mpi\"\nmodule monitor\nargument output x\n");
  EXPECT_EQ(c.site.records, "/var/log/pnmpi");
  EXPECT_EQ(c.site.records_line, 1);
  EXPECT_FALSE(c.site.optout);
  EXPECT_EQ(c.site.optout_line, 2);
  ASSERT_EQ(c.site.rules.size(), 2u);
  EXPECT_FALSE(c.site.rules[0].include);
  EXPECT_EQ(c.site.rules[1].pattern, "/usr/bin/lmp mpi");
  ASSERT_EQ(c.modules.size(), 1u);
  EXPECT_TRUE(c.modules[0].site);
  EXPECT_EQ(c.modules[0].file, "/etc/pnmpi/site.conf");
  EXPECT_TRUE(site("module monitor\n").site.optout); // allowed unless denied
}

TEST(SiteConfig, SiteErrorsNameTheLine) {
  const std::string f = "/etc/pnmpi/site.conf:";
  EXPECT_EQ(site_error("records var/log\n"),
            f + "1: 'records' needs an absolute directory, not 'var/log' (a job's working "
                "directory is the user's, never the site's)");
  EXPECT_EQ(site_error("records /a\nrecords /b\n"),
            f + "2: 'records' given twice (first on line 1)");
  EXPECT_EQ(site_error("records\n"),
            f + "1: 'records' needs the record directory, as in 'records /var/log/pnmpi'");
  EXPECT_EQ(site_error("optout maybe\n"), f + "1: 'optout' takes 'allow' or 'deny', not 'maybe'");
  EXPECT_EQ(site_error("exclude (\n").substr(0, f.size() + 50),
            (f + "1: 'exclude': '(' is not a POSIX extended regular expression: ")
                .substr(0, f.size() + 50));
  EXPECT_EQ(site_error("globalpcontrol on\n"),
            f + "1: 'globalpcontrol' is not allowed in a site configuration: the site's modules "
                "join the default stack of every job, and MPI_Pcontrol's delivery is the "
                "user's to choose");
  EXPECT_EQ(error_of([] { parse_config("records /var/log\n", "u.conf"); }),
            "u.conf:1: 'records' belongs in the site configuration (PNMPI_SITE_CONF, "
            "PREFIX/etc/pnmpi/site.conf), not in a user's .pnmpi-conf");
}

TEST(SiteConfig, SiteModulesFollowTheUsersDefaultStack) {
  Config user = parse_config("module a\nmodule b\nstack side\nmodule c\n", "/home/u/.pnmpi-conf");
  const Config c = compose_configs(std::move(user), site("module s\nmodule t\n"));
  ASSERT_EQ(c.modules.size(), 5u);
  const char *names[] = {"a", "b", "s", "t", "c"};
  const int stacks[] = {0, 0, 0, 0, 1};
  const bool sites[] = {false, false, true, true, false};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(c.modules[i].name, names[i]);
    EXPECT_EQ(c.modules[i].stack, stacks[i]);
    EXPECT_EQ(c.modules[i].site, sites[i]);
    EXPECT_EQ(source_of(c.modules[i], c),
              sites[i] ? "/etc/pnmpi/site.conf" : "/home/u/.pnmpi-conf");
  }
  EXPECT_EQ(c.path, "/home/u/.pnmpi-conf");
  EXPECT_EQ(c.site_path, "/etc/pnmpi/site.conf");
  // No user file: the site's alone.
  const Config alone = compose_configs(Config{}, site("records /l\nmodule s\n"));
  EXPECT_EQ(alone.path, "/etc/pnmpi/site.conf");
  EXPECT_EQ(alone.site.records, "/l");
  ASSERT_EQ(alone.modules.size(), 1u);
}

TEST(SiteConfig, ExecutableRules) {
  const SiteSettings none = site("module s\n").site;
  EXPECT_TRUE(site_applies_to(none, "/usr/bin/anything"));
  const SiteSettings s =
      site("exclude ^/usr/bin/\nexclude /python3?$\ninclude /usr/bin/lmp\n").site;
  EXPECT_FALSE(site_applies_to(s, "/usr/bin/hostname"));
  EXPECT_FALSE(site_applies_to(s, "/opt/conda/bin/python3"));
  EXPECT_TRUE(site_applies_to(s, "/usr/bin/lmp"));
  EXPECT_TRUE(site_applies_to(s, "/home/u/a.out"));
}

TEST(SiteConfig, FindingTheSiteConfiguration) {
  SiteSearch none;
  EXPECT_FALSE(find_site_config(none).has_value());
  none.installed = "/nonexistent/etc/pnmpi/site.conf";
  EXPECT_FALSE(find_site_config(none).has_value());
  SiteSearch named;
  named.named = "/nonexistent/site.conf";
  EXPECT_EQ(error_of([&] { find_site_config(named); }),
            "PNMPI_SITE_CONF is set to '/nonexistent/site.conf', which is not a readable file");
  SiteSearch dir;
  dir.installed = "/tmp";
  EXPECT_EQ(error_of([&] { find_site_config(dir); }),
            "/tmp: is a directory, not a site configuration file");
}

TEST(SiteRecords, NamesAreEscapedDarshanStyle) {
  std::tm t{};
  t.tm_mon = 10;
  t.tm_mday = 28;
  t.tm_hour = 1;
  t.tm_min = 2;
  t.tm_sec = 3;
  EXPECT_EQ(record_file_name("alice", "lmp mpi", "123", t, 0xabc, "pnmpi"),
            "alice_lmp-mpi_id123_11-28-3723-0000000000000abc.pnmpi");
  EXPECT_EQ(record_file_name("", "../../etc/passwd", "1_2", t, 1, "pnmpi"),
            "unknown_..-..-etc-passwd_id1-2_11-28-3723-0000000000000001.pnmpi");
  EXPECT_EQ(name_part(std::string(100, 'x')).size(), 64u);
  EXPECT_EQ(name_part(".."), "unknown");
}

/// A fresh record directory made by pnmpi-admin for this year.
std::string admin_logdir(const std::string &name) {
  const std::string dir = std::string(PNMPI_TEST_SCRATCH_DIR) + "/SiteRecords." + name;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  const std::string year = std::to_string(utc.tm_year + 1900);
  const std::string cmd = "rm -rf '" + dir + "' && /usr/bin/python3 " PNMPI_TEST_ADMIN " mkdirs '" +
                          dir + "' --years " + year + " > /dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return dir;
}

std::string today(const std::string &logdir) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  return logdir + "/" + std::to_string(utc.tm_year + 1900) + "/" + std::to_string(utc.tm_mon + 1) +
         "/" + std::to_string(utc.tm_mday);
}

TEST(SiteRecords, AdminDirectoriesAndRecordPermissions) {
  const std::string logdir = admin_logdir("Permissions");
  struct stat st;
  ASSERT_EQ(::stat(today(logdir).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 03773u); // sticky, set-group-id, others may only create
  if (::geteuid() == 0) {
    EXPECT_EQ(st.st_uid, 0u); // root-owned: no user can rename or remove the directory
  }
  const mode_t old = ::umask(077); // a strict umask must not hide the record from the admins
  std::string path;
  const int fd = create_record_file(logdir, "pnmpi", &path);
  ::umask(old);
  ASSERT_GE(fd, 0);
  ::close(fd);
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(path.rfind(today(logdir) + "/", 0), 0u) << path;
  const std::string name = path.substr(path.rfind('/') + 1);
  EXPECT_NE(name.find("_test-site-unit_idp"), std::string::npos) << name;
  EXPECT_EQ(name.substr(name.size() - 6), ".pnmpi");
}

TEST(SiteRecords, RecordsBelongToTheAdminGroup) {
  // As root, pnmpi-admin gives the day directories the admins' group and set-group-id, so
  // every record is readable by that group (Debian's `adm` stands in for it here).
  if (::geteuid() != 0)
    GTEST_SKIP() << "not root: only root can give the directories another group";
  const group *adm = ::getgrnam("adm");
  if (adm == nullptr)
    GTEST_SKIP() << "no group 'adm' on this system";
  const std::string dir = std::string(PNMPI_TEST_SCRATCH_DIR) + "/SiteRecords.Group";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  const std::string cmd = "rm -rf '" + dir + "' && /usr/bin/python3 " PNMPI_TEST_ADMIN " mkdirs '" +
                          dir + "' --group adm --years " + std::to_string(utc.tm_year + 1900) +
                          " > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  struct stat st;
  ASSERT_EQ(::stat(today(dir).c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_gid, adm->gr_gid);
  std::string path;
  const int fd = create_record_file(dir, "pnmpi", &path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_gid, adm->gr_gid);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

TEST(SiteRecords, MissingDirectoryAndLinksAreRefused) {
  std::string path;
  EXPECT_EQ(error_of([&] { create_record_file("/nonexistent/logs", "pnmpi", &path); }),
            "cannot use the record directory /nonexistent/logs: No such file or directory (an "
            "administrator makes it with 'pnmpi-admin mkdirs /nonexistent/logs')");
  // A day directory replaced by a link (to a directory the user controls) is not followed.
  const std::string logdir = admin_logdir("Links");
  const std::string day = today(logdir);
  ASSERT_EQ(std::system(("rmdir '" + day + "' && ln -s /tmp '" + day + "'").c_str()), 0);
  const std::string e = error_of([&] { create_record_file(logdir, "pnmpi", &path); });
  EXPECT_EQ(e, "cannot use the record directory " + day +
                   ": Not a directory (an administrator makes it with "
                   "'pnmpi-admin mkdirs " +
                   logdir + "')");
}

TEST(SiteRecords, TwoJobsInTheSameSecondGetTwoRecords) {
  const std::string logdir = admin_logdir("Race");
  // 8 processes of one user and one executable, one job id, released at once.
  ::setenv("SLURM_JOB_ID", "4242", 1);
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < 8; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      char c;
      ::close(go[1]);
      if (::read(go[0], &c, 1) != 0)
        ::_exit(3);
      std::string path;
      try {
        const int fd = create_record_file(logdir, "pnmpi", &path);
        ::_exit(fd >= 0 ? 0 : 1);
      } catch (...) {
        ::_exit(2);
      }
    }
    children.push_back(pid);
  }
  ::close(go[0]);
  ::close(go[1]); // all start now
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  ::unsetenv("SLURM_JOB_ID");
  const std::string listing = today(logdir);
  int files = 0;
  std::set<std::string> names;
  if (DIR *d = ::opendir(listing.c_str())) {
    while (const dirent *e = ::readdir(d))
      if (e->d_name[0] != '.') {
        ++files;
        names.insert(e->d_name);
      }
    ::closedir(d);
  }
  EXPECT_EQ(files, 8);
  for (const std::string &n : names)
    EXPECT_NE(n.find("_id4242_"), std::string::npos) << n;
}

TEST(SiteRecords, AdminCommandErrors) {
  const std::string cmd = "/usr/bin/python3 " PNMPI_TEST_ADMIN " mkdirs ";
  EXPECT_NE(std::system((cmd + "relative 2>/dev/null").c_str()), 0);
  EXPECT_NE(std::system((cmd + "/tmp/x --group no-such-group-here 2>/dev/null").c_str()), 0);
  EXPECT_NE(std::system((cmd + "/tmp/x --years 3000-1 2>/dev/null").c_str()), 0);
}

} // namespace
} // namespace pnmpi

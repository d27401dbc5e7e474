// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "config.h"

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iterator>
#include <pwd.h>
#include <regex.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

#include "error.h"
#include "input_file.h"
#include "log.h"

namespace pnmpi {

const std::string *ModuleSpec::argument(std::string_view key) const {
  const Argument *a = find_argument(key);
  return a != nullptr ? &a->value : nullptr;
}

const Argument *ModuleSpec::find_argument(std::string_view key) const {
  for (const Argument &a : arguments)
    if (a.key == key)
      return &a;
  return nullptr;
}

std::string PcontrolPolicy::describe() const {
  switch (mode) {
  case Mode::Int:
    return "int";
  case Mode::On:
    return "on";
  case Mode::Off:
    return "off";
  case Mode::Typed:
    break;
  }
  static const char *const types[] = {"int", "long", "double", "pointer"};
  return "typed " + std::to_string(level) + " " + types[static_cast<int>(type)];
}

int Config::stack_index(std::string_view name) const {
  for (std::size_t i = 0; i < stacks.size(); ++i)
    if (stacks[i] == name)
      return static_cast<int>(i);
  return -1;
}

namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

/// Splits a line into words separated by blanks; `#` at the start of a word begins a
/// comment that runs to the end of the line. A word that starts with `"` runs to the next
/// `"` and may hold blanks and `#`; there are no escapes. Sets `error` and returns what it
/// has when the line breaks these rules.
std::vector<std::string_view> words_of(std::string_view line, std::string &error) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i]))
      ++i;
    if (i == line.size() || line[i] == '#')
      break;
    if (line[i] == '"') {
      const std::size_t close = line.find('"', i + 1);
      if (close == std::string_view::npos) {
        error = "unterminated '\"': a quoted word ends with '\"' on the same line";
        return words;
      }
      if (close + 1 < line.size() && !is_blank(line[close + 1])) {
        error = "a quoted word must be followed by a blank, not '" +
                shown(line.substr(close + 1, 1)) + "'";
        return words;
      }
      words.push_back(line.substr(i + 1, close - i - 1));
      i = close + 1;
      continue;
    }
    const std::size_t start = i;
    while (i < line.size() && !is_blank(line[i])) {
      if (line[i] == '"') {
        error = "'\"' inside the word '" + shown(line.substr(start, i + 1 - start)) +
                "...': quote the whole word, as in \"/opt/my tools/x.so\"";
        return words;
      }
      ++i;
    }
    words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::string quoted(std::string_view word) {
  return "'" + shown(word) + "'";
}

/// A whole number that fits an int, or nullopt.
std::optional<int> int_of(std::string_view word) {
  const std::string w(word);
  char *end = nullptr;
  errno = 0;
  const long v = std::strtol(w.c_str(), &end, 10);
  if (w.empty() || errno != 0 || *end != '\0' || v < INT_MIN || v > INT_MAX)
    return std::nullopt;
  return static_cast<int>(v);
}

/// The parser's state between lines: which stack and which module of it lines attach to.
class Parser {
public:
  Parser(Config &config, const std::string &path, ConfigKind kind)
      : m_config(config), m_path(path), m_kind(kind) {}

  void line(int line_no, const std::vector<std::string_view> &w) {
    m_line = line_no;
    const std::string_view directive = w[0];
    const bool site = m_kind == ConfigKind::Site;
    if (directive == "module")
      module(w);
    else if (directive == "argument")
      argument(w);
    else if (directive == "pcontrol")
      pcontrol(w);
    else if (directive == "stack" && !site)
      stack(w);
    else if (directive == "globalpcontrol" && !site)
      global_pcontrol(w);
    else if (site && (directive == "stack" || directive == "globalpcontrol"))
      fail(quoted(directive) +
           " is not allowed in a site configuration: the site's modules join the default "
           "stack of every job, and MPI_Pcontrol's delivery is the user's to choose");
    else if (directive == "records" && site)
      records(w);
    else if (directive == "optout" && site)
      optout(w);
    else if ((directive == "include" || directive == "exclude") && site)
      rule(w);
    else if (!site && (directive == "records" || directive == "optout" || directive == "include" ||
                       directive == "exclude"))
      fail(quoted(directive) +
           " belongs in the site configuration (PNMPI_SITE_CONF, PREFIX/etc/pnmpi/site.conf), "
           "not in a user's .pnmpi-conf");
    else if (site)
      fail("unknown directive " + quoted(directive) +
           " (expected 'module', 'argument', 'pcontrol', 'records', 'optout', 'include' or "
           "'exclude')");
    else
      fail("unknown directive " + quoted(directive) +
           " (expected 'module', 'argument', 'pcontrol', 'stack' or 'globalpcontrol')");
  }

  [[noreturn]] void fail(const std::string &message) const {
    throw Error(where(m_path, m_line) + ": " + message);
  }

private:
  void module(const std::vector<std::string_view> &w) {
    if (w.size() < 2)
      fail("'module' needs a module name, as in 'module empty'");
    if (w.size() > 2)
      fail("'module' takes one name; unexpected " + quoted(w[2]) +
           " (give module arguments on 'argument' lines below it)");
    if (w[1].empty())
      fail("'module' needs a module name, not an empty one");
    m_config.modules.push_back({std::string(w[1]), m_line, m_stack, {}});
    m_config.modules.back().file = m_path;
    m_config.modules.back().site = m_kind == ConfigKind::Site;
    m_module_in_stack = true;
    m_argument_lines.clear();
  }

  /// The module a per-module directive (`argument`, `pcontrol`) belongs to: the one above
  /// it in the same stack.
  ModuleSpec &current_module(std::string_view directive, const char *what) {
    if (!m_module_in_stack) {
      if (m_config.modules.empty())
        fail("'" + std::string(directive) + "' before any 'module': " + what);
      fail("'" + std::string(directive) + "' after 'stack " + shown(m_config.stacks[m_stack]) +
           "' on line " + std::to_string(m_config.stack_lines[m_stack]) +
           " and before any 'module' of it: " + what);
    }
    return m_config.modules.back();
  }

  void argument(const std::vector<std::string_view> &w) {
    ModuleSpec &module = current_module(w[0], "an argument belongs to the module above it");
    if (w.size() < 3)
      fail(w.size() < 2 ? std::string("'argument' needs a key and a value, as in "
                                      "'argument delay-us 100'")
                        : "'argument' " + quoted(w[1]) + " needs a value");
    // Keys of the current module, by hash: a module with many arguments stays linear.
    const auto [first, fresh] = m_argument_lines.emplace(std::string(w[1]), m_line);
    if (!fresh)
      fail("argument " + quoted(w[1]) + " given twice to module " + quoted(module.name) +
           " (first on line " + std::to_string(first->second) + ")");
    std::string value(w[2]);
    for (std::size_t i = 3; i < w.size(); ++i)
      value.append(" ").append(w[i]);
    module.arguments.push_back({std::string(w[1]), std::move(value), m_line});
  }

  void pcontrol(const std::vector<std::string_view> &w) {
    ModuleSpec &module =
        current_module(w[0], "it says whether the module above it receives MPI_Pcontrol");
    if (w.size() > 2)
      fail("'pcontrol' takes one word, 'on' or 'off'; unexpected " + quoted(w[2]));
    if (module.pcontrol_line != 0)
      fail("'pcontrol' given twice to module " + quoted(module.name) + " (first on line " +
           std::to_string(module.pcontrol_line) + ")");
    // A bare `pcontrol` means `on`, as in PnMPI.
    if (w.size() == 2 && w[1] != "on" && w[1] != "off")
      fail("'pcontrol' takes 'on' or 'off', not " + quoted(w[1]));
    module.pcontrol = w.size() == 1 || w[1] == "on";
    module.pcontrol_line = m_line;
  }

  void stack(const std::vector<std::string_view> &w) {
    if (w.size() < 2)
      fail("'stack' needs a stack name, as in 'stack small'");
    if (w.size() > 2)
      fail("'stack' takes one name; unexpected " + quoted(w[2]));
    if (w[1].empty())
      fail("'stack' needs a stack name, not an empty one");
    const auto known = m_stack_indices.find(std::string(w[1]));
    const int existing = known != m_stack_indices.end() ? known->second : -1;
    if (existing == 0) {
      // The default stack is open from the top of the file. Naming it is allowed while it
      // is still the current stack; a stack is one section and is never reopened.
      if (m_stack != 0)
        fail("stack 'default' cannot be reopened after 'stack " + shown(m_config.stacks[m_stack]) +
             "' on line " + std::to_string(m_config.stack_lines[m_stack]) +
             ": each stack is one section; move these modules above it");
      if (m_config.stack_lines[0] != 0)
        fail("stack 'default' started twice (first on line " +
             std::to_string(m_config.stack_lines[0]) + ")");
      m_config.stack_lines[0] = m_line;
      return;
    }
    if (existing > 0)
      fail("stack " + quoted(w[1]) + " started twice (first on line " +
           std::to_string(m_config.stack_lines[existing]) +
           "): each stack is one section; list its modules together");
    if (m_config.stacks.size() >= static_cast<std::size_t>(kMaxStacks))
      fail("too many stacks: at most " + std::to_string(kMaxStacks) +
           " (each costs a table of every MPI routine on every rank)");
    m_stack_indices.emplace(std::string(w[1]), static_cast<int>(m_config.stacks.size()));
    m_config.stacks.emplace_back(w[1]);
    m_config.stack_lines.push_back(m_line);
    m_stack = static_cast<int>(m_config.stacks.size()) - 1;
    m_module_in_stack = false;
  }

  void global_pcontrol(const std::vector<std::string_view> &w) {
    PcontrolPolicy &p = m_config.pcontrol;
    if (p.line != 0)
      fail("'globalpcontrol' given twice (first on line " + std::to_string(p.line) + ")");
    if (w.size() < 2)
      fail("'globalpcontrol' needs a mode: 'int', 'on', 'off' or 'typed LEVEL TYPE'");
    const std::string_view mode = w[1];
    if (mode == "pmpi" || mode == "pnmpi" || mode == "mixed")
      fail("globalpcontrol " + quoted(mode) +
           " is not supported: pnmpi cannot forward MPI_Pcontrol's variable argument list; "
           "use 'typed LEVEL TYPE' to pass one typed argument at one level");
    if (mode == "typed") {
      if (w.size() < 4)
        fail("'globalpcontrol typed' needs a level and a type, as in "
             "'globalpcontrol typed 4042 pointer'");
      if (w.size() > 4)
        fail("'globalpcontrol typed' takes a level and a type; unexpected " + quoted(w[4]));
      const std::optional<int> level = int_of(w[2]);
      if (!level)
        fail("'globalpcontrol typed': the level must be a whole number, not " + quoted(w[2]));
      static const std::pair<const char *, PcontrolPolicy::Type> types[] = {
          {"int", PcontrolPolicy::Type::Int},
          {"long", PcontrolPolicy::Type::Long},
          {"double", PcontrolPolicy::Type::Double},
          {"pointer", PcontrolPolicy::Type::Pointer}};
      bool known = false;
      for (const auto &[name, type] : types)
        if (w[3] == name) {
          p.type = type;
          known = true;
        }
      if (!known)
        fail("'globalpcontrol typed': the type must be 'int', 'long', 'double' or 'pointer', "
             "not " +
             quoted(w[3]));
      p.mode = PcontrolPolicy::Mode::Typed;
      p.level = *level;
    } else {
      if (mode == "int")
        p.mode = PcontrolPolicy::Mode::Int;
      else if (mode == "on")
        p.mode = PcontrolPolicy::Mode::On;
      else if (mode == "off")
        p.mode = PcontrolPolicy::Mode::Off;
      else
        fail("'globalpcontrol' mode must be 'int', 'on', 'off' or 'typed LEVEL TYPE', not " +
             quoted(mode));
      if (w.size() > 2)
        fail("'globalpcontrol " + std::string(mode) + "' takes no more words; unexpected " +
             quoted(w[2]));
    }
    p.line = m_line;
  }

  void records(const std::vector<std::string_view> &w) {
    SiteSettings &s = m_config.site;
    if (s.records_line != 0)
      fail("'records' given twice (first on line " + std::to_string(s.records_line) + ")");
    if (w.size() != 2 || w[1].empty())
      fail(w.size() < 2 ? std::string("'records' needs the record directory, as in "
                                      "'records /var/log/pnmpi'")
                        : "'records' takes one directory; unexpected " + quoted(w[2]));
    if (w[1][0] != '/')
      fail("'records' needs an absolute directory, not " + quoted(w[1]) +
           " (a job's working directory is the user's, never the site's)");
    s.records = std::string(w[1]);
    s.records_line = m_line;
  }

  void optout(const std::vector<std::string_view> &w) {
    SiteSettings &s = m_config.site;
    if (s.optout_line != 0)
      fail("'optout' given twice (first on line " + std::to_string(s.optout_line) + ")");
    if (w.size() != 2 || (w[1] != "allow" && w[1] != "deny"))
      fail("'optout' takes 'allow' or 'deny'" +
           (w.size() < 2 ? std::string() : ", not " + quoted(w[1])));
    s.optout = w[1] == "allow";
    s.optout_line = m_line;
  }

  void rule(const std::vector<std::string_view> &w) {
    if (w.size() != 2 || w[1].empty())
      fail(quoted(w[0]) + " takes one regular expression on the executable's path, as in '" +
           std::string(w[0]) + " ^/usr/bin/' (quote it to hold blanks)" +
           (w.size() > 2 ? "; unexpected " + quoted(w[2]) : std::string()));
    const std::string pattern(w[1]);
    regex_t re;
    const int rc = ::regcomp(&re, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char why[256];
      ::regerror(rc, &re, why, sizeof why);
      fail(quoted(w[0]) + ": " + quoted(pattern) +
           " is not a POSIX extended regular expression: " + why);
    }
    ::regfree(&re);
    m_config.site.rules.push_back({w[0] == "include", pattern, m_line});
  }

  Config &m_config;
  const std::string &m_path;
  ConfigKind m_kind;
  int m_line = 0;
  int m_stack = 0;                ///< the stack `module` lines go to
  bool m_module_in_stack = false; ///< whether that stack has a module yet
  /// The argument keys of the last module, with their lines.
  std::unordered_map<std::string, int> m_argument_lines;
  std::unordered_map<std::string, int> m_stack_indices{{"default", 0}};
};

} // namespace

Config parse_config(std::string_view text, const std::string &path, ConfigKind kind) {
  Config config;
  config.path = path;
  Parser parser(config, path, kind);
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find('\0') != std::string_view::npos)
      throw Error(where(path, line_no) +
                  ": NUL byte in the configuration: this is not a text file");
    std::string error;
    const std::vector<std::string_view> w = words_of(line, error);
    if (!error.empty())
      throw Error(where(path, line_no) + ": " + error);
    if (!w.empty())
      parser.line(line_no, w);
  }
  return config;
}

namespace {
/// Far more than any real configuration (200,000 argument lines are about 5 MB).
constexpr std::uint64_t kMaxConfigBytes = 64ull << 20;
} // namespace

Config load_config_file(const std::string &path, ConfigKind kind) {
  check_trusted(path, shown(path));
  const std::vector<unsigned char> bytes =
      read_input_file(path, kMaxConfigBytes, "cannot read configuration " + shown(path));
  const std::string text(bytes.begin(), bytes.end());
  return parse_config(text, path, kind);
}

const std::string &source_of(const ModuleSpec &module, const Config &config) {
  return module.file.empty() ? config.path : module.file;
}

Config compose_configs(Config user, Config site) {
  // The user's default stack is the first section of the file (stacks are never reopened),
  // so its modules come first in the list: the site's go right after them, which keeps
  // every stack's modules together and the handles in line order within each file.
  std::size_t at = 0;
  while (at < user.modules.size() && user.modules[at].stack == 0)
    ++at;
  for (ModuleSpec &m : site.modules) {
    m.stack = 0;
    m.site = true;
    if (m.file.empty())
      m.file = site.path;
  }
  user.modules.insert(user.modules.begin() + static_cast<std::ptrdiff_t>(at),
                      std::make_move_iterator(site.modules.begin()),
                      std::make_move_iterator(site.modules.end()));
  for (ModuleSpec &m : user.modules)
    if (!m.site && m.file.empty())
      m.file = user.path;
  if (user.path.empty())
    user.path = site.path;
  user.site = std::move(site.site);
  user.site_path = site.path;
  return user;
}

bool site_applies_to(const SiteSettings &site, const std::string &exe) {
  bool excluded = false;
  for (const SiteSettings::Rule &r : site.rules) {
    regex_t re;
    if (::regcomp(&re, r.pattern.c_str(), REG_EXTENDED | REG_NOSUB) != 0)
      continue; // checked when parsed
    const bool match = ::regexec(&re, exe.c_str(), 0, nullptr, 0) == 0;
    ::regfree(&re);
    if (match && r.include)
      return true;
    excluded |= match;
  }
  return !excluded;
}

SiteSearch SiteSearch::from_environment() {
  SiteSearch search;
  if (const char *env = std::getenv("PNMPI_SITE_CONF"); env != nullptr && *env != '\0')
    search.named = env;
#ifdef PNMPI_SITE_CONF_FILE
  search.installed = PNMPI_SITE_CONF_FILE;
#endif
  return search;
}

namespace {

/// What is at `path`: nullopt when nothing, else "" for a regular file or why it is not one.
std::optional<std::string> file_kind(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return errno == ENOENT || errno == ENOTDIR ? std::nullopt
                                               : std::optional<std::string>(std::strerror(errno));
  if (S_ISREG(st.st_mode))
    return std::string();
  return std::string(S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
}

} // namespace

ConfigSearch ConfigSearch::from_environment() {
  ConfigSearch search;
  if (const char *env = std::getenv("PNMPI_CONF"); env != nullptr && *env != '\0')
    search.named = env;
  search.home = std::getenv("HOME");
  return search;
}

std::optional<std::string> find_config_file(const ConfigSearch &search) {
  if (search.named != nullptr) {
    const std::optional<std::string> kind = file_kind(search.named);
    if (!kind || !kind->empty())
      throw Error(search.named_by_option
                      ? "-c '" + shown(search.named) + "': not a readable file; fix the path"
                      : "PNMPI_CONF is set to '" + shown(search.named) +
                            "', which is not a readable file; fix the path or unset PNMPI_CONF");
    return std::string(search.named);
  }
  // A .pnmpi-conf that is there but is no file is a mistake to report, not a file to skip:
  // skipping it would silently fall back to another configuration.
  auto candidate = [](const std::string &p) {
    const std::optional<std::string> kind = file_kind(p);
    if (kind && !kind->empty())
      throw Error(p + ": " + *kind +
                  ", not a configuration file; remove or rename it, or set "
                  "PNMPI_CONF to the configuration to use");
    return kind.has_value();
  };
  if (candidate(".pnmpi-conf"))
    return std::string(".pnmpi-conf");
  if (search.home != nullptr && *search.home != '\0') {
    std::string p = std::string(search.home) + "/.pnmpi-conf";
    if (candidate(p))
      return p;
  }
  return std::nullopt;
}

std::optional<std::string> find_site_config(const SiteSearch &search) {
  if (search.named != nullptr) {
    const std::optional<std::string> kind = file_kind(search.named);
    if (!kind || !kind->empty())
      throw Error("PNMPI_SITE_CONF is set to '" + shown(search.named) +
                  "', which is not a readable file");
    return std::string(search.named);
  }
  if (!search.installed.empty()) {
    const std::optional<std::string> kind = file_kind(search.installed);
    if (kind && !kind->empty())
      throw Error(search.installed + ": " + *kind + ", not a site configuration file");
    if (kind)
      return search.installed;
  }
  return std::nullopt;
}

std::string describe_config_file(const std::string &path, const ConfigSearch &search) {
  if (search.named != nullptr)
    return path;
  if (path == ".pnmpi-conf") {
    char cwd[4096];
    const std::string where = ::getcwd(cwd, sizeof cwd) != nullptr ? cwd : "?";
    return "./.pnmpi-conf in the working directory " + where +
           " (found there: neither PNMPI_CONF nor pnmpi-run -c names a configuration)";
  }
  return path + " (found in the home directory: neither PNMPI_CONF nor pnmpi-run -c names a "
                "configuration, and the working directory has no .pnmpi-conf)";
}

bool unsafe_allowed() {
  const char *env = std::getenv("PNMPI_ALLOW_UNSAFE");
  return env != nullptr && std::strcmp(env, "1") == 0;
}

namespace {

std::string user_name(uid_t uid) {
  std::string name = "uid " + std::to_string(uid);
  struct passwd pw, *found = nullptr;
  char buf[4096];
  if (::getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found != nullptr)
    name = std::string(found->pw_name) + " (" + name + ")";
  return name;
}

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

/// Refuses `st` (of `subject`, shown as `who`: "it" or "its directory D") unless the running
/// user or root owns it and only the owner may change it.
void check_one(const struct stat &st, const std::string &subject, const std::string &who,
               const std::string &what) {
  const uid_t me = ::geteuid();
  if (st.st_uid != 0 && st.st_uid != me)
    throw Error(
        what + ": not trusted: " + who + " belongs to " + user_name(st.st_uid) +
        ", not to you or root, so that user decides what pnmpi loads; have it owned by you or "
        "root ('chown'), or set PNMPI_ALLOW_UNSAFE=1 to accept it");
  // A link's own mode is always 0777 and means nothing: its owner and directory count.
  const bool sticky_dir = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) != 0;
  const mode_t writers = st.st_mode & (S_IWGRP | S_IWOTH);
  if (writers == 0 || sticky_dir || S_ISLNK(st.st_mode))
    return;
  const char *by = writers == (S_IWGRP | S_IWOTH) ? "its group and others"
                   : writers == S_IWGRP           ? "its group"
                                                  : "others";
  throw Error(what + ": not trusted: " + who + " is writable by " + by + " (mode " +
              mode_text(st.st_mode) + "), so they decide what pnmpi loads; run 'chmod go-w " +
              subject + "', or set PNMPI_ALLOW_UNSAFE=1 to accept it");
}

/// Checks the existing directory `dir` (an absolute path without links) and every one
/// above it.
void check_directories(std::string dir, const std::string &what) {
  for (;;) {
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0)
      throw Error(what + ": not trusted: cannot inspect its directory " + shown(dir) + ": " +
                  std::strerror(errno));
    check_one(st, shown(dir), "its directory " + shown(dir), what);
    if (dir == "/")
      return;
    const std::size_t slash = dir.rfind('/');
    dir = slash == 0 || slash == std::string::npos ? "/" : dir.substr(0, slash);
  }
}

std::string parent_of(const std::string &path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::optional<std::string> real_path(const std::string &path) {
  char *resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr)
    return std::nullopt;
  std::string out(resolved);
  std::free(resolved);
  return out;
}

} // namespace

void check_trusted(const std::string &path, const std::string &what) {
  if (unsafe_allowed())
    return;
  const std::optional<std::string> real = real_path(path);
  struct stat st;
  if (!real || ::stat(real->c_str(), &st) != 0)
    return; // nothing there: opening it says so
  // Where the path leads: the file and every directory above it.
  check_one(st, shown(path), "it", what);
  check_directories(parent_of(*real), what);
  // The way there, as written: whoever may replace a directory or a link on it chooses the
  // file, so each one passed through (and each link's owner) counts too.
  std::string written = path;
  if (written[0] != '/') {
    const std::optional<std::string> cwd = real_path(".");
    if (!cwd)
      return;
    written = *cwd + "/" + written;
  }
  for (std::size_t slash = written.find('/', 1); slash != std::string::npos;
       slash = written.find('/', slash + 1)) {
    const std::string prefix = written.substr(0, slash);
    struct stat link;
    if (::lstat(prefix.c_str(), &link) != 0 || ::stat(prefix.c_str(), &st) != 0)
      throw Error(what + ": not trusted: cannot inspect " + shown(prefix) +
                  " on the way to it: " + std::strerror(errno));
    if (S_ISLNK(link.st_mode))
      check_one(link, shown(prefix), "the symbolic link " + shown(prefix), what);
    check_one(st, shown(prefix), "its directory " + shown(prefix), what);
  }
  struct stat link;
  if (::lstat(written.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
    check_one(link, shown(path), "the symbolic link " + shown(path), what);
}

bool receives_pcontrol(const Config &config, const ModuleSpec &module) {
  switch (config.pcontrol.mode) {
  case PcontrolPolicy::Mode::Off:
    return false;
  case PcontrolPolicy::Mode::On:
    return true;
  case PcontrolPolicy::Mode::Int:
  case PcontrolPolicy::Mode::Typed:
    break;
  }
  return module.pcontrol;
}

} // namespace pnmpi

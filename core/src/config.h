// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pnmpi {

/// One `argument KEY VALUE...` line.
struct Argument {
  std::string key;
  std::string value; ///< the rest of the line, words joined by one space
  int line;
};

/// One `module NAME` line and what attaches to it. Each is one layer.
struct ModuleSpec {
  std::string name;
  int line;
  int stack; ///< index into Config::stacks; 0 is the default stack
  std::vector<Argument> arguments;
  bool pcontrol = true;  ///< `pcontrol on|off`: whether MPI_Pcontrol reaches this layer
  int pcontrol_line = 0; ///< the `pcontrol` line, 0 when none was given
  /// The file of its line ("" for Config::path): a composed config holds the user's lines
  /// and the site's (source_of()).
  std::string file = "";
  /// Added by the site configuration: its failures go through the site policy (site.h)
  /// instead of stopping the job.
  bool site = false;

  /// The value of argument `key`, or nullptr.
  const std::string *argument(std::string_view key) const;
  /// Argument `key` with its line, or nullptr.
  const Argument *find_argument(std::string_view key) const;
};

/// `globalpcontrol`: how an application's MPI_Pcontrol(level, ...) reaches the modules.
struct PcontrolPolicy {
  enum class Mode {
    Int,   ///< the level, to every layer that wraps MPI_Pcontrol and has `pcontrol on`
    On,    ///< the level, to every layer that wraps MPI_Pcontrol, `pcontrol off` or not
    Off,   ///< to no layer: MPI_Pcontrol goes straight to MPI
    Typed, ///< as Int, plus one argument of `type` when the level is `level`
  };
  enum class Type { Int, Long, Double, Pointer };
  Mode mode = Mode::Int;
  int level = 0;         ///< Typed only
  Type type = Type::Int; ///< Typed only
  int line = 0;          ///< the `globalpcontrol` line, 0 when none was given

  /// The mode as the config spells it: "int", "on", "off", "typed 4042 pointer".
  std::string describe() const;
};

/// What only a site configuration says (docs/site.md): where job records go, whether a user
/// may turn the site's modules off, and which executables the site's modules apply to.
struct SiteSettings {
  std::string records;  ///< `records LOGDIR`; "" when none
  int records_line = 0; ///< its line, 0 when none
  bool optout = true;   ///< `optout allow|deny`: whether PNMPI_SITE_DISABLE=1 is obeyed
  int optout_line = 0;  ///< its line, 0 when none
  /// `include REGEX` / `exclude REGEX`, POSIX extended expressions searched for in the
  /// executable's path, as Darshan's DARSHAN_APP_EXCLUDE: the site's modules apply unless
  /// the path matches an `exclude` and no `include`.
  struct Rule {
    bool include;
    std::string pattern;
    int line;
  };
  std::vector<Rule> rules;
};

/// Which grammar a configuration is read with: the user's `.pnmpi-conf`, or the site's
/// (the same, minus `stack` and `globalpcontrol`, plus `records`, `optout`, `include` and
/// `exclude`).
enum class ConfigKind { User, Site };

/// A parsed `.pnmpi-conf`. The one parser: the core and pnmpi-info both read it with
/// parse_config(), so a file means the same everywhere.
struct Config {
  std::string path; ///< empty when no file was found
  std::vector<std::string> stacks{"default"};
  std::vector<int> stack_lines{0}; ///< the `stack` line of each stack; 0: implicit
  std::vector<ModuleSpec> modules;
  PcontrolPolicy pcontrol;
  SiteSettings site;     ///< a site configuration's own directives (ConfigKind::Site)
  std::string site_path; ///< the site configuration composed in, "" when none

  /// The index of stack `name`, or -1.
  int stack_index(std::string_view name) const;
};

/// Whether `module` receives MPI_Pcontrol under `config`'s globalpcontrol mode and its own
/// `pcontrol` line: the one rule the core and pnmpi-info both apply.
bool receives_pcontrol(const Config &config, const ModuleSpec &module);

/// The most stacks a configuration may start: each costs a table of every routine per rank.
constexpr int kMaxStacks = 1024;

/// Parses configuration text. Throws pnmpi::Error with `PATH:LINE: message`, naming the
/// offending token. Words are separated by blanks; a word may be double-quoted to hold
/// blanks or `#` (`module "/opt/my tools/x.so"`). Time and memory are linear in the text.
Config parse_config(std::string_view text, const std::string &path,
                    ConfigKind kind = ConfigKind::User);

/// Reads and parses the file at `path`, which must be trusted (check_trusted). Throws
/// pnmpi::Error.
Config load_config_file(const std::string &path, ConfigKind kind = ConfigKind::User);

/// The file a module's line is in: its own (a composed config) or the config's.
const std::string &source_of(const ModuleSpec &module, const Config &config);

/// The one order of a user's and a site's configuration (docs/site.md): the user's file as
/// it is, with the site's modules appended to its default stack, after the user's own
/// (nearest MPI). So the site's modules see the application's calls as the application made
/// them, count a user tool's own traffic as a module's (call origin), and their own traffic
/// at finalize goes below every user tool: the user's tools see and write exactly what they
/// would without the site. `user` may be empty (no user file: path "").
Config compose_configs(Config user, Config site);

/// Whether the site's modules apply to the executable at `exe` (SiteSettings::rules).
bool site_applies_to(const SiteSettings &site, const std::string &exe);

/// Where the site configuration is looked for. As ConfigSearch, nothing here reads the
/// environment but from_environment().
struct SiteSearch {
  /// $PNMPI_SITE_CONF, or null: it must exist.
  const char *named = nullptr;
  /// PREFIX/etc/pnmpi/site.conf of this install: used when it exists.
  std::string installed;
  static SiteSearch from_environment();
};

/// The site configuration to use: the one named by PNMPI_SITE_CONF, else the install's
/// when it exists, else nullopt. Throws pnmpi::Error when the named file is not a file.
std::optional<std::string> find_site_config(const SiteSearch &search);

/// Where the configuration is looked for. Nothing here reads the environment: the core
/// passes from_environment(), pnmpi-info its `-c` option.
struct ConfigSearch {
  /// A configuration named explicitly ($PNMPI_CONF or `-c`), or null: it must exist.
  const char *named = nullptr;
  /// Whether `named` came from `-c` rather than $PNMPI_CONF (for the message when missing).
  bool named_by_option = false;
  /// The home directory ($HOME), or null.
  const char *home = nullptr;
  /// $PNMPI_CONF and $HOME, as the core looks.
  static ConfigSearch from_environment();
};

/// The configuration file to use: the one named, else ./.pnmpi-conf, else
/// HOME/.pnmpi-conf. Returns nullopt when none exists. Throws pnmpi::Error when the named
/// file does not exist (the user asked for it explicitly), and when ./.pnmpi-conf or
/// ~/.pnmpi-conf exists but is not a regular file.
std::optional<std::string> find_config_file(const ConfigSearch &search);

/// `path` (what find_config_file returned) for messages: a file found without being named
/// says where it was found and why it was taken, since a stray ./.pnmpi-conf changes a job.
std::string describe_config_file(const std::string &path, const ConfigSearch &search);

/// Whether PNMPI_ALLOW_UNSAFE=1 turns check_trusted() off.
bool unsafe_allowed();

/// Throws pnmpi::Error `WHAT: not trusted: ...` unless the file at `path` (a config or a
/// module) and every directory above it can be changed by no one but the running user and
/// root: each is owned by one of them and is not writable by group or others, except a
/// directory with the sticky bit (/tmp), whose entries only their owners may replace. Both
/// the resolved path and the path as written are checked (every directory on the way, and
/// the owner of every symbolic link). A file that does not exist passes (opening it reports
/// that). PNMPI_ALLOW_UNSAFE=1 turns the check off.
void check_trusted(const std::string &path, const std::string &what);

} // namespace pnmpi

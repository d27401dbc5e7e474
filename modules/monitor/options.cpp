// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The monitor reads its settings through the public module API, as a third-party module
// would: nothing here parses a value. An environment override is parsed by the core's
// pnmpi_parse_* (the parser behind pnmpi_argument_*), so both sources accept exactly the
// same values; the monitor only names the source in its message, as only it knows it.

#include "options.h"

#include <cctype>
#include <set>

namespace pnmpi::monitor {

namespace {

const pnmpi_flag_t kRecordWords[] = {{"p2p", kRecordP2P}, {"coll", kRecordColl},
                                     {"osc", kRecordOsc}, {"all", kRecordAll},
                                     {"none", 0},         {nullptr, 0}};

enum FileBits : unsigned { kFilesPerRank = 1u, kFilesGathered = 2u };
const pnmpi_flag_t kFilesWords[] = {
    {"per-rank", kFilesPerRank}, {"gathered", kFilesGathered}, {"none", 0}, {nullptr, 0}};

/// Reads settings one after another from their two sources: each typed method pairs a
/// pnmpi_argument_* reader with its pnmpi_parse_* twin.
class Reader {
public:
  Reader(PNMPI_modHandle_t self, const Lookup &environment, std::string &error)
      : m_self(self), m_environment(environment), m_error(error) {}

  bool flags(const char *name, const pnmpi_flag_t *words, unsigned &value) {
    return read(
        name, [&] { return pnmpi_argument_flags(m_self, name, kOptional, words, &value); },
        [&](const char *text, char *problem, size_t size) {
          return pnmpi_parse_flags(text, words, &value, problem, size);
        });
  }

  bool whole(const char *name, long min, long max, long &value) {
    return read(
        name, [&] { return pnmpi_argument_long(m_self, name, kOptional, min, max, &value); },
        [&](const char *text, char *problem, size_t size) {
          return pnmpi_parse_long(text, min, max, &value, problem, size);
        });
  }

  bool on_off(const char *name, int &value) {
    return read(
        name, [&] { return pnmpi_argument_bool(m_self, name, kOptional, &value); },
        [&](const char *text, char *problem, size_t size) {
          return pnmpi_parse_bool(text, &value, problem, size);
        });
  }

  bool nonempty_text(const char *name, const char *&value) {
    constexpr int flags = kOptional | PNMPI_ARG_NONEMPTY;
    return read(
        name, [&] { return pnmpi_argument_string(m_self, name, flags, &value); },
        [&](const char *text, char *problem, size_t size) {
          return pnmpi_parse_string(text, flags, &value, problem, size);
        });
  }

private:
  static constexpr int kOptional = PNMPI_ARG_OPTIONAL;

  /// `from_config()` reads the argument line; `from_text(text, problem, size)` parses the
  /// variable's value instead when the variable is set.
  template <class FromConfig, class FromText>
  bool read(const char *name, FromConfig &&from_config, FromText &&from_text) {
    const std::string var = env_name(name);
    if (const char *text = m_environment ? m_environment(var.c_str()) : nullptr) {
      // Ample for any message but a huge value's, which is cut.
      char problem[1024];
      const PNMPI_status_t status = from_text(text, problem, sizeof problem);
      if (status == PNMPI_SUCCESS) {
        m_given.insert(name);
        return true;
      }
      m_error = "environment variable " + var + " " +
                (status == PNMPI_BADARG ? std::string(problem)
                                        : std::string(PNMPI_Service_StatusString(status)));
      return false;
    }
    const PNMPI_status_t status = from_config();
    if (status == PNMPI_SUCCESS)
      m_given.insert(name);
    if (status == PNMPI_SUCCESS || status == PNMPI_NOARG)
      return true;
    // PNMPI_BADARG: the core has printed the message, naming the argument's line.
    if (status != PNMPI_BADARG)
      m_error =
          std::string("cannot read argument '") + name + "': " + PNMPI_Service_StatusString(status);
    return false;
  }

public:
  /// Whether setting `name` was read from either source.
  bool given(const char *name) const { return m_given.count(name) != 0; }

private:
  PNMPI_modHandle_t m_self;
  std::set<std::string> m_given;
  const Lookup &m_environment;
  std::string &m_error;
};

} // namespace

std::string env_name(const std::string &name) {
  std::string env = "PNMPI_MONITOR_";
  for (char c : name)
    env += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return env;
}

bool read_options(PNMPI_modHandle_t self, const Lookup &environment, Options &out,
                  std::string &error) {
  error.clear();
  Options o;
  unsigned files = (o.per_rank ? kFilesPerRank : 0u) | (o.gathered ? kFilesGathered : 0u);
  const char *output = nullptr, *parts = nullptr;
  int histograms = o.histograms, summary = o.summary, json_dense = o.json_dense;
  long top = o.top, max_sessions = o.max_sessions, gather_round_bytes = o.gather_round_bytes;
  long json_dense_limit = o.json_dense_limit;
  Reader read(self, environment, error);
  const bool ok = read.flags("record", kRecordWords, o.record) &&
                  read.nonempty_text("output", output) && read.flags("files", kFilesWords, files) &&
                  read.on_off("histograms", histograms) && read.on_off("summary", summary) &&
                  read.whole("top", 0, 100, top) &&
                  read.whole("max-sessions", 1, 1000000, max_sessions) &&
                  read.whole("gather-round-bytes", 1, 2147483647, gather_round_bytes) &&
                  read.on_off("json-dense", json_dense) &&
                  read.whole("json-dense-limit", 0, 1000000, json_dense_limit) &&
                  read.nonempty_text("parts", parts);
  if (!ok)
    return false;
  if (output != nullptr)
    o.output = output;
  if (parts != nullptr)
    o.parts = parts;
  o.files_given = read.given("files");
  o.summary_given = read.given("summary");
  o.per_rank = (files & kFilesPerRank) != 0;
  o.gathered = (files & kFilesGathered) != 0;
  o.histograms = histograms != 0;
  o.summary = summary != 0;
  // The readers' ranges fit an int.
  o.top = static_cast<int>(top);
  o.max_sessions = static_cast<int>(max_sessions);
  o.gather_round_bytes = static_cast<int>(gather_round_bytes);
  o.json_dense = json_dense != 0;
  o.json_dense_limit = static_cast<int>(json_dense_limit);
  out = o;
  return true;
}

} // namespace pnmpi::monitor

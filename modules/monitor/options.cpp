// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "options.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <vector>

#include "output_format.h"

namespace pnmpi::monitor {

namespace {

std::vector<std::string> split_list(const std::string &value) {
  std::vector<std::string> items;
  std::string item;
  for (char c : value) {
    if (c == ',') {
      items.push_back(item);
      item.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      item += c;
    }
  }
  items.push_back(item);
  return items;
}

bool parse_record(const std::string &value, unsigned &bits) {
  unsigned result = 0;
  bool none = false;
  for (const std::string &item : split_list(value)) {
    if (item == "p2p")
      result |= kRecordP2P;
    else if (item == "coll")
      result |= kRecordColl;
    else if (item == "osc")
      result |= kRecordOsc;
    else if (item == "all")
      result |= kRecordAll;
    else if (item == "none")
      none = true;
    else
      return false;
  }
  if (none && result != 0)
    return false;
  bits = result;
  return true;
}

bool parse_files(const std::string &value, bool &per_rank, bool &gathered) {
  bool p = false, g = false, none = false;
  for (const std::string &item : split_list(value)) {
    if (item == "per-rank")
      p = true;
    else if (item == "gathered")
      g = true;
    else if (item == "none")
      none = true;
    else
      return false;
  }
  if (none && (p || g))
    return false;
  per_rank = p;
  gathered = g;
  return true;
}

bool parse_switch(const std::string &value, bool &on) {
  if (value == "on" || value == "yes" || value == "true" || value == "1") {
    on = true;
    return true;
  }
  if (value == "off" || value == "no" || value == "false" || value == "0") {
    on = false;
    return true;
  }
  return false;
}

bool parse_int(const std::string &value, long lo, long hi, int &out) {
  if (value.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  const long v = std::strtol(value.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi)
    return false;
  out = static_cast<int>(v);
  return true;
}

} // namespace

std::string env_name(const std::string &name) {
  std::string env = "PNMPI_MONITOR_";
  for (char c : name)
    env += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return env;
}

bool parse_options(const Lookup &config, const Lookup &environment, Options &out,
                   std::string &error) {
  Options o;
  struct Rule {
    const char *name;
    const char *expects;
    std::function<bool(const std::string &)> apply;
  };
  const Rule rules[] = {
      {"record", "a comma-separated list of p2p, coll, osc, or all or none",
       [&](const std::string &v) { return parse_record(v, o.record); }},
      {"output", "a non-empty path prefix",
       [&](const std::string &v) {
         o.output = v;
         return !v.empty();
       }},
      {"files", "a comma-separated list of per-rank, gathered, or none",
       [&](const std::string &v) { return parse_files(v, o.per_rank, o.gathered); }},
      {"histograms", "on or off",
       [&](const std::string &v) { return parse_switch(v, o.histograms); }},
      {"summary", "on or off", [&](const std::string &v) { return parse_switch(v, o.summary); }},
      {"top", "a whole number from 0 to 100",
       [&](const std::string &v) { return parse_int(v, 0, 100, o.top); }},
      {"max-sessions", "a whole number from 1 to 1000000",
       [&](const std::string &v) { return parse_int(v, 1, 1000000, o.max_sessions); }},
      {"gather-round-bytes", "a whole number from 1 to 2147483647",
       [&](const std::string &v) { return parse_int(v, 1, 2147483647, o.gather_round_bytes); }},
  };
  for (const Rule &rule : rules) {
    const std::string var = env_name(rule.name);
    const char *from_env = environment ? environment(var.c_str()) : nullptr;
    const char *from_config = config ? config(rule.name) : nullptr;
    const char *value = from_env != nullptr ? from_env : from_config;
    if (value == nullptr)
      continue;
    if (!rule.apply(value)) {
      error = (from_env != nullptr ? "environment variable " + var
                                   : std::string("argument '") + rule.name + "'") +
              " must be " + rule.expects + ", not '" + escape_name(value) + "'";
      return false;
    }
  }
  out = o;
  return true;
}

} // namespace pnmpi::monitor

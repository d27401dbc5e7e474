// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "monitor_files.h"

#include <cctype>
#include <fstream>
#include <sstream>

namespace pnmpi::test {

void add(Matrix &m, int from, int to, std::uint64_t bytes, std::uint64_t n) {
  Cell &c = m[{from, to}];
  c.count += n;
  c.bytes += n * bytes;
}

std::string diff(const Matrix &actual, const Matrix &expected) {
  std::ostringstream out;
  auto show = [](const Cell &c) {
    return std::to_string(c.count) + " msgs/" + std::to_string(c.bytes) + " bytes";
  };
  for (const auto &[key, cell] : expected) {
    auto it = actual.find(key);
    const Cell got = it == actual.end() ? Cell{} : it->second;
    if (!(got == cell))
      out << "  " << key.first << "->" << key.second << ": got " << show(got) << ", expected "
          << show(cell) << "\n";
  }
  for (const auto &[key, cell] : actual)
    if (expected.count(key) == 0 && !(cell == Cell{}))
      out << "  " << key.first << "->" << key.second << ": got " << show(cell)
          << ", expected nothing\n";
  return out.str();
}

std::string read_text(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

std::vector<std::string> split(const std::string &line, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(line);
  while (std::getline(in, part, sep))
    parts.push_back(part);
  return parts;
}

/// "<n> <unit>" -> n, if the unit matches.
bool number_with(const std::string &field, const std::string &unit, std::uint64_t &out) {
  const std::size_t space = field.find(' ');
  if (space == std::string::npos || field.substr(space + 1) != unit)
    return false;
  try {
    out = std::stoull(field.substr(0, space));
  } catch (...) {
    return false;
  }
  return true;
}

} // namespace

ProfFile read_prof(const std::string &path) {
  ProfFile f;
  std::ifstream in(path);
  if (!in)
    return f;
  f.read = true;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#')
      continue;
    const std::vector<std::string> p = split(line, '\t');
    const std::string &type = p[0];
    try {
      if (type == "D" && p.size() == 3 && p[2].rfind("procs: ", 0) == 0) {
        f.comms.push_back({p[1], p[2].substr(7), {}});
      } else if ((type == "O2A" || type == "A2O" || type == "A2A") && p.size() == 4 &&
                 !f.comms.empty()) {
        Cell &c = f.comms.back().classes[type == "O2A" ? 0 : type == "A2O" ? 1 : 2];
        if (!number_with(p[2], "bytes", c.bytes) || !number_with(p[3], "msgs sent", c.count))
          f.malformed.push_back(line);
      } else if (p.size() == 5 || p.size() == 6) {
        const int me = std::stoi(p[1]), peer = std::stoi(p[2]);
        Cell c;
        if (!number_with(p[3], "bytes", c.bytes) || !number_with(p[4], "msgs sent", c.count)) {
          f.malformed.push_back(line);
          continue;
        }
        f.lines[type][{me, peer}] = c;
        if (p.size() == 6) {
          std::vector<std::uint64_t> h;
          for (const std::string &v : split(p[5], ','))
            h.push_back(std::stoull(v));
          f.histograms[{type, me, peer}] = h;
        }
      } else {
        f.malformed.push_back(line);
      }
    } catch (...) {
      f.malformed.push_back(line);
    }
  }
  return f;
}

ProfSet read_prof_set(const std::string &prefix, int ranks) {
  ProfSet set;
  for (int r = 0; r < ranks; ++r) {
    const std::string path = prefix + "." + std::to_string(r) + ".prof";
    ProfFile f = read_prof(path);
    if (!f.read)
      set.problems += "missing " + path + "\n";
    for (const std::string &bad : f.malformed)
      set.problems += path + ": malformed line: " + bad + "\n";
    for (const auto &[type, m] : f.lines)
      for (const auto &[key, cell] : m) {
        if (key.first != r)
          set.problems += path + ": a line of rank " + std::to_string(key.first) + "\n";
        set.lines[type][key] = cell;
      }
    for (const auto &[key, h] : f.histograms)
      set.histograms[key] = h;
    set.files.push_back(std::move(f));
  }
  return set;
}

// ---- JSON ---------------------------------------------------------------------------------

const Json &Json::operator[](const std::string &key) const {
  static const Json null;
  auto it = fields.find(key);
  return it == fields.end() ? null : it->second;
}

const Json &Json::operator[](std::size_t i) const {
  static const Json null;
  return i < items.size() ? items[i] : null;
}

namespace {

struct Parser {
  explicit Parser(const std::string &text) : s(text) {}
  const std::string &s;
  std::size_t i = 0;
  std::string error;

  void skip() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
      ++i;
  }
  bool fail(const std::string &what) {
    if (error.empty())
      error = what + " at offset " + std::to_string(i);
    return false;
  }
  bool literal(const char *word) {
    const std::string w = word;
    if (s.compare(i, w.size(), w) != 0)
      return fail("expected " + w);
    i += w.size();
    return true;
  }
  bool string(std::string &out) {
    if (i >= s.size() || s[i] != '"')
      return fail("expected a string");
    for (++i; i < s.size() && s[i] != '"'; ++i) {
      if (s[i] == '\\') {
        if (++i >= s.size())
          return fail("unterminated escape");
        const char e = s[i];
        if (e == 'n')
          out += '\n';
        else if (e == 't')
          out += '\t';
        else if (e == 'u') {
          if (i + 4 >= s.size())
            return fail("short \\u escape");
          out += static_cast<char>(std::stoi(s.substr(i + 1, 4), nullptr, 16));
          i += 4;
        } else
          out += e;
      } else {
        out += s[i];
      }
    }
    if (i >= s.size())
      return fail("unterminated string");
    ++i;
    return true;
  }
  bool value(Json &v) {
    skip();
    if (i >= s.size())
      return fail("unexpected end");
    const char c = s[i];
    if (c == '{') {
      v.kind = Json::Object;
      ++i;
      skip();
      if (i < s.size() && s[i] == '}') {
        ++i;
        return true;
      }
      for (;;) {
        skip();
        std::string key;
        if (!string(key))
          return false;
        skip();
        if (i >= s.size() || s[i] != ':')
          return fail("expected ':'");
        ++i;
        if (!value(v.fields[key]))
          return false;
        skip();
        if (i < s.size() && s[i] == ',') {
          ++i;
          continue;
        }
        if (i < s.size() && s[i] == '}') {
          ++i;
          return true;
        }
        return fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v.kind = Json::Array;
      ++i;
      skip();
      if (i < s.size() && s[i] == ']') {
        ++i;
        return true;
      }
      for (;;) {
        v.items.emplace_back();
        if (!value(v.items.back()))
          return false;
        skip();
        if (i < s.size() && s[i] == ',') {
          ++i;
          continue;
        }
        if (i < s.size() && s[i] == ']') {
          ++i;
          return true;
        }
        return fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v.kind = Json::String;
      return string(v.text);
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      v.kind = Json::Number;
      const std::size_t start = i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
        ++i;
      v.number = std::stoull(s.substr(start, i - start));
      return true;
    }
    if (c == 't' || c == 'f') {
      v.kind = Json::Bool;
      v.number = c == 't';
      return literal(c == 't' ? "true" : "false");
    }
    if (c == 'n')
      return literal("null");
    return fail(std::string("unexpected '") + c + "'");
  }
};

} // namespace

bool parse_json(const std::string &text, Json &out, std::string &error) {
  Parser p(text);
  if (!p.value(out)) {
    error = p.error;
    return false;
  }
  p.skip();
  if (p.i != text.size()) {
    error = "trailing text at offset " + std::to_string(p.i);
    return false;
  }
  return true;
}

namespace {

Matrix dense_matrix(const Json &cat) {
  Matrix m;
  const Json &counts = cat["counts"], &bytes = cat["bytes"];
  for (std::size_t i = 0; i < counts.items.size(); ++i)
    for (std::size_t j = 0; j < counts[i].items.size(); ++j) {
      const std::uint64_t c = counts[i][j].number, b = bytes[i][j].number;
      if (c != 0 || b != 0)
        m[{static_cast<int>(i), static_cast<int>(j)}] = {c, b};
    }
  return m;
}

Matrix entries_matrix(const Json &cat) {
  Matrix m;
  for (const Json &e : cat["entries"].items)
    m[{static_cast<int>(e[0].number), static_cast<int>(e[1].number)}] = {e[2].number, e[3].number};
  return m;
}

} // namespace

Matrix json_matrix(const Json &doc, const std::string &category) {
  const Json &cat = doc["categories"][category];
  return doc["version"].number >= 2 ? entries_matrix(cat) : dense_matrix(cat);
}

std::string json_problems(const Json &doc, int dense_limit, bool dense) {
  std::ostringstream out;
  if (doc["version"].number != 2)
    return "version " + std::to_string(doc["version"].number) + ", not 2\n";
  const std::uint64_t n = doc["world_size"].number;
  if (doc["hosts"].kind != Json::Array || doc["hosts"].items.size() != n)
    out << "hosts: " << doc["hosts"].items.size() << " names for " << n << " ranks\n";
  for (const Json &h : doc["hosts"].items)
    if (h.kind != Json::String || h.text.empty())
      out << "hosts: an empty or non-string name\n";
  const bool want_dense = dense || n <= static_cast<std::uint64_t>(dense_limit);
  if (doc["categories"].fields.size() != 8)
    out << doc["categories"].fields.size() << " categories, not 8\n";
  for (const auto &[name, cat] : doc["categories"].fields) {
    const Json &entries = cat["entries"];
    if (entries.kind != Json::Array)
      out << name << ": no entries\n";
    std::pair<std::uint64_t, std::uint64_t> last{0, 0};
    bool first = true;
    for (const Json &e : entries.items) {
      if (e.items.size() != 4 || e[0].number >= n || e[1].number >= n) {
        out << name << ": a malformed entry\n";
        continue;
      }
      if (e[2].number == 0 && e[3].number == 0)
        out << name << ": a zero entry " << e[0].number << "->" << e[1].number << "\n";
      const std::pair<std::uint64_t, std::uint64_t> at{e[0].number, e[1].number};
      if (!first && !(last < at))
        out << name << ": entry " << at.first << "->" << at.second << " out of order\n";
      last = at;
      first = false;
    }
    const bool has_dense = cat.fields.count("counts") != 0 || cat.fields.count("bytes") != 0;
    if (has_dense != want_dense)
      out << name << ": dense matrices " << (has_dense ? "present" : "absent") << " for " << n
          << " ranks\n";
    if (has_dense) {
      if (cat["counts"].items.size() != n || cat["bytes"].items.size() != n)
        out << name << ": dense matrices of the wrong size\n";
      const std::string d = diff(dense_matrix(cat), entries_matrix(cat));
      if (!d.empty())
        out << name << ": dense matrices and entries differ:\n" << d;
    }
  }
  return out.str();
}

} // namespace pnmpi::test

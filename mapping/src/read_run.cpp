// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Reading the application traffic of a monitor run: the per-rank .prof files (the monitor's
// and Open MPI's own monitoring share the line format) and the monitor's gathered JSON. Both
// readers are linear in the file and keep only the cells with traffic; every error names
// the file and, where there is one, the line.
#include "matrix.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <map>
#include <sys/stat.h>

#include <pnmpi/mapping.h>

namespace pnmpi::mapping {
namespace {

constexpr int64_t kMaxRanks = int64_t{1} << 22;

[[noreturn]] void fail_at(int code, const std::string &file, long line, const std::string &msg) {
  std::string where = file;
  if (line > 0)
    where += ":" + std::to_string(line);
  throw Error(code, where + ": " + msg);
}

std::string read_file(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    fail_at(PNMPI_MAP_EIO, path, 0, std::string("cannot read: ") + std::strerror(errno));
  std::string data;
  char buf[1 << 16];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0)
    data.append(buf, got);
  bool bad = std::ferror(f) != 0;
  int saved = errno;
  std::fclose(f);
  if (bad)
    fail_at(PNMPI_MAP_EIO, path, 0, std::string("cannot read: ") + std::strerror(saved));
  return data;
}

bool is_dir(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool ends_with(const std::string &s, const std::string &tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// "PREFIX.<rank>.prof" -> (PREFIX, rank), or rank -1.
std::pair<std::string, int64_t> split_prof_name(const std::string &path) {
  if (!ends_with(path, ".prof"))
    return {"", -1};
  std::string stem = path.substr(0, path.size() - 5);
  size_t dot = stem.rfind('.');
  if (dot == std::string::npos || dot + 1 == stem.size() || stem.size() - dot > 9)
    return {"", -1};
  int64_t rank = 0;
  for (size_t k = dot + 1; k < stem.size(); ++k) {
    if (stem[k] < '0' || stem[k] > '9')
      return {"", -1};
    rank = rank * 10 + (stem[k] - '0');
  }
  return {stem.substr(0, dot), rank};
}

std::vector<std::string> list_dir(const std::string &dir) {
  std::vector<std::string> out;
  DIR *d = ::opendir(dir.c_str());
  if (d == nullptr)
    fail_at(PNMPI_MAP_EIO, dir, 0, std::string("cannot list: ") + std::strerror(errno));
  while (struct dirent *e = ::readdir(d))
    out.emplace_back(e->d_name);
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string join(const std::string &dir, const std::string &name) {
  return dir.empty() || dir == "." ? name : (dir.back() == '/' ? dir + name : dir + "/" + name);
}

/// The .prof files of PREFIX, by rank (empty if none).
std::map<int64_t, std::string> prof_files(const std::string &prefix) {
  size_t slash = prefix.rfind('/');
  std::string dir = slash == std::string::npos ? "." : prefix.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? prefix : prefix.substr(slash + 1);
  std::map<int64_t, std::string> out;
  if (!is_dir(dir))
    return out;
  for (const std::string &name : list_dir(dir)) {
    auto [pre, rank] = split_prof_name(name);
    if (rank < 0 || pre != base)
      continue;
    std::string path = slash == std::string::npos ? name : dir + name;
    auto [it, fresh] = out.emplace(rank, path);
    if (!fresh)
      fail_at(PNMPI_MAP_EFORMAT, path, 0,
              "rank " + std::to_string(rank) + " is given twice (also " + it->second + ")");
  }
  return out;
}

// --- .prof ---------------------------------------------------------------------------------

bool parse_u64(const std::string &s, uint64_t &v) {
  if (s.empty() || s.size() > 20)
    return false;
  v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10)
      return false;
    v = v * 10 + d;
  }
  return true;
}

std::vector<std::string> split_tabs(const std::string &line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos)
      return out;
    start = tab + 1;
  }
}

bool strip_suffix(std::string &s, const char *suffix) {
  if (!ends_with(s, suffix))
    return false;
  s.resize(s.size() - std::strlen(suffix));
  return true;
}

void read_prof_file(const std::string &path, int64_t rank, int64_t n, std::vector<Cell> &cells) {
  std::string text = read_file(path);
  if (!text.empty() && text.back() != '\n')
    fail_at(PNMPI_MAP_EFORMAT, path, std::count(text.begin(), text.end(), '\n') + 1,
            "the last line has no end: the file is truncated (was the run killed while "
            "writing it?)");
  long ln = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++ln;
    if (line.empty() || line[0] == '#')
      continue;
    std::vector<std::string> f = split_tabs(line);
    const std::string &t = f[0];
    if (t == "E" || t == "I" || t == "S" || t == "R" || t == "C") {
      uint64_t me, peer, bytes, msgs;
      std::string b = f.size() > 3 ? f[3] : "", m = f.size() > 4 ? f[4] : "";
      if (f.size() < 5 || f.size() > 6 || !parse_u64(f[1], me) || !parse_u64(f[2], peer) ||
          !strip_suffix(b, " bytes") || !parse_u64(b, bytes) || !strip_suffix(m, " msgs sent") ||
          !parse_u64(m, msgs))
        fail_at(PNMPI_MAP_EFORMAT, path, ln,
                "not a line of a .prof file (`" + t +
                    "<TAB>me<TAB>peer<TAB>B bytes<TAB>M msgs sent`): " + line.substr(0, 80));
      if (static_cast<int64_t>(me) != rank)
        fail_at(PNMPI_MAP_EFORMAT, path, ln,
                "a line of rank " + std::to_string(me) + " in rank " + std::to_string(rank) +
                    "'s file: files of different runs or renamed files?");
      if (peer >= static_cast<uint64_t>(n))
        fail_at(PNMPI_MAP_EFORMAT, path, ln,
                "peer " + std::to_string(peer) + ", but there are " + std::to_string(n) +
                    " files (ranks 0 to " + std::to_string(n - 1) +
                    "): the files of some ranks are missing, or are of a run of another size");
      if (t != "I" && bytes != 0)
        cells.push_back({rank, static_cast<int64_t>(peer), bytes});
      continue;
    }
    if (t == "D") {
      const std::string procs = f.size() == 3 ? f[2] : "";
      if (procs.compare(0, 7, "procs: ") != 0)
        fail_at(PNMPI_MAP_EFORMAT, path, ln,
                "not a communicator line (`D<TAB>name<TAB>procs: ...`): " + line.substr(0, 80));
      if (f[1] == "MPI_COMM_WORLD") {
        int64_t size = procs.size() > 7 ? std::count(procs.begin(), procs.end(), ',') + 1 : 0;
        if (size != n)
          fail_at(PNMPI_MAP_EFORMAT, path, ln,
                  "MPI_COMM_WORLD has " + std::to_string(size) + " processes, but there are " +
                      std::to_string(n) + " files: files of different runs?");
      }
      continue;
    }
    if (t == "O2A" || t == "A2O" || t == "A2A")
      continue;
    fail_at(PNMPI_MAP_EFORMAT, path, ln, "not a line of a .prof file: " + line.substr(0, 80));
  }
}

Matrix read_prof(const std::string &prefix, const std::map<int64_t, std::string> &files) {
  int64_t n = static_cast<int64_t>(files.size());
  if (n > kMaxRanks)
    fail_at(PNMPI_MAP_EFORMAT, prefix, 0, std::to_string(n) + " .prof files: too many ranks");
  int64_t expect = 0;
  for (const auto &[rank, path] : files) {
    if (rank != expect)
      fail_at(PNMPI_MAP_EFORMAT, prefix + "." + std::to_string(expect) + ".prof", 0,
              "missing: " + std::to_string(n) + " files of " + prefix +
                  ".<rank>.prof were found, so ranks 0 to " + std::to_string(n - 1) +
                  " are expected");
    ++expect;
  }
  std::vector<Cell> cells;
  for (const auto &[rank, path] : files)
    read_prof_file(path, rank, n, cells);
  return build_matrix(n, std::move(cells));
}

// --- JSON ----------------------------------------------------------------------------------

/// A reader of the monitor's JSON that keeps only what the mapping needs (the application
/// categories' entries, or version 1's dense byte matrices as their non-zero cells) and
/// skips the rest without building it.
class JsonReader {
public:
  JsonReader(std::string path, std::string text) : m_path(std::move(path)), m_s(std::move(text)) {}

  Matrix read() {
    ws();
    top();
    ws();
    if (m_pos != m_s.size())
      error("text after the end of the JSON object");
    if (m_format != "pnmpi-monitor-matrices")
      fail_at(PNMPI_MAP_EFORMAT, m_path, 0,
              "not the monitor's JSON (format \"" + m_format +
                  "\", expected \"pnmpi-monitor-matrices\")");
    if (m_version != 1 && m_version != 2)
      fail_at(PNMPI_MAP_EFORMAT, m_path, m_version_line,
              "version " + std::to_string(m_version) +
                  " of the monitor's JSON is not known (1 and 2 are read)");
    if (m_n < 1 || m_n > kMaxRanks)
      fail_at(PNMPI_MAP_EFORMAT, m_path, m_n_line,
              "world_size must be an integer from 1 to " + std::to_string(kMaxRanks));
    if (!m_have_categories)
      fail_at(PNMPI_MAP_EFORMAT, m_path, 0, "no 'categories' object");
    for (const Pending &p : m_pending)
      for (const Cell &c : p.cells)
        if (c.src >= m_n || c.dst >= m_n)
          fail_at(PNMPI_MAP_EFORMAT, m_path, p.line,
                  "category '" + p.name + "': " + p.field + " names a rank >= world_size " +
                      std::to_string(m_n));
    std::vector<Cell> all;
    for (const Pending &p : m_pending)
      if (p.application && p.use)
        all.insert(all.end(), p.cells.begin(), p.cells.end());
    return build_matrix(m_n, std::move(all));
  }

private:
  struct Pending {
    std::string name, field;
    long line;
    bool application, use;
    std::vector<Cell> cells;
  };

  [[noreturn]] void error(const std::string &msg) {
    fail_at(PNMPI_MAP_EFORMAT, m_path, m_line, msg + " (not the monitor's JSON, or a damaged one)");
  }

  void ws() {
    while (m_pos < m_s.size()) {
      char c = m_s[m_pos];
      if (c == '\n')
        ++m_line;
      else if (c != ' ' && c != '\t' && c != '\r')
        return;
      ++m_pos;
    }
  }

  char peek() {
    ws();
    return m_pos < m_s.size() ? m_s[m_pos] : '\0';
  }

  void expect(char c) {
    if (peek() != c)
      error(std::string("expected '") + c + "'");
    ++m_pos;
  }

  std::string string() {
    expect('"');
    std::string out;
    while (m_pos < m_s.size()) {
      char c = m_s[m_pos++];
      if (c == '"')
        return out;
      if (static_cast<unsigned char>(c) < 0x20)
        error("a control character inside a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (m_pos >= m_s.size())
        break;
      char e = m_s[m_pos++];
      switch (e) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        if (m_pos + 4 > m_s.size())
          error("a truncated \\u escape");
        unsigned v = 0;
        for (int k = 0; k < 4; ++k) {
          char h = m_s[m_pos++];
          v <<= 4;
          if (h >= '0' && h <= '9')
            v |= static_cast<unsigned>(h - '0');
          else if ((h | 0x20) >= 'a' && (h | 0x20) <= 'f')
            v |= static_cast<unsigned>((h | 0x20) - 'a' + 10);
          else
            error("a bad \\u escape");
        }
        // Names only matter for comparisons with ASCII keys: other code points are kept as
        // a marker that matches no key.
        out += v < 0x80 ? static_cast<char>(v) : '?';
        break;
      }
      default:
        error("a bad escape in a string");
      }
    }
    error("a string without its closing quote");
  }

  /// A non-negative integer; anything else is an error naming `what`.
  uint64_t uint(const char *what) {
    ws();
    size_t start = m_pos;
    uint64_t v = 0;
    while (m_pos < m_s.size() && m_s[m_pos] >= '0' && m_s[m_pos] <= '9') {
      uint64_t d = static_cast<uint64_t>(m_s[m_pos] - '0');
      if (v > (UINT64_MAX - d) / 10)
        error(std::string(what) + ": a number above 2^64");
      v = v * 10 + d;
      ++m_pos;
    }
    if (m_pos == start ||
        (m_pos < m_s.size() && (m_s[m_pos] == '.' || m_s[m_pos] == 'e' || m_s[m_pos] == 'E')))
      error(std::string(what) + " must be a non-negative integer");
    return v;
  }

  void skip() {
    char c = peek();
    if (c == '"') {
      string();
    } else if (c == '{') {
      ++m_pos;
      if (peek() == '}') {
        ++m_pos;
        return;
      }
      for (;;) {
        string();
        expect(':');
        skip();
        if (peek() == ',') {
          ++m_pos;
          continue;
        }
        expect('}');
        return;
      }
    } else if (c == '[') {
      ++m_pos;
      if (peek() == ']') {
        ++m_pos;
        return;
      }
      for (;;) {
        skip();
        if (peek() == ',') {
          ++m_pos;
          continue;
        }
        expect(']');
        return;
      }
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      ++m_pos;
      while (m_pos < m_s.size() && std::strchr("0123456789+-.eE", m_s[m_pos]) != nullptr)
        ++m_pos;
    } else {
      for (const char *word : {"true", "false", "null"})
        if (m_s.compare(m_pos, std::strlen(word), word) == 0) {
          m_pos += std::strlen(word);
          return;
        }
      error("not a JSON value");
    }
  }

  /// Calls f() for each element of an array.
  template <class F> void array(F f) {
    expect('[');
    if (peek() == ']') {
      ++m_pos;
      return;
    }
    for (;;) {
      f();
      if (peek() == ',') {
        ++m_pos;
        continue;
      }
      expect(']');
      return;
    }
  }

  /// Calls f(key) for each member of an object, positioned on the value.
  template <class F> void object(F f) {
    expect('{');
    if (peek() == '}') {
      ++m_pos;
      return;
    }
    for (;;) {
      std::string key = string();
      expect(':');
      f(key);
      if (peek() == ',') {
        ++m_pos;
        continue;
      }
      expect('}');
      return;
    }
  }

  void top() {
    object([&](const std::string &key) {
      if (key == "format") {
        m_format = string();
      } else if (key == "version") {
        m_version_line = m_line;
        uint64_t v = uint("version");
        m_version = v > 1000 ? 1000 : static_cast<int>(v);
      } else if (key == "world_size") {
        m_n_line = m_line;
        uint64_t v = uint("world_size");
        m_n = v > static_cast<uint64_t>(kMaxRanks) ? kMaxRanks + 1 : static_cast<int64_t>(v);
      } else if (key == "categories") {
        m_have_categories = true;
        object([&](const std::string &name) { category(name); });
      } else {
        skip();
      }
    });
  }

  void category(const std::string &name) {
    long line = m_line;
    std::string origin;
    Pending entries{name, "entries", line, false, false, {}};
    Pending dense{name, "bytes", line, false, false, {}};
    bool have_entries = false, have_dense = false;
    object([&](const std::string &key) {
      if (key == "origin") {
        origin = string();
      } else if (key == "entries") {
        have_entries = true;
        entries.line = m_line;
        array([&] {
          uint64_t v[4];
          int k = 0;
          array([&] {
            if (k == 4)
              error("category '" + name + "': an entry has more than 4 numbers");
            v[k++] = uint("an entry's numbers");
          });
          if (k != 4)
            error("category '" + name + "': an entry must be [sender, receiver, count, bytes]");
          if (v[0] >= static_cast<uint64_t>(kMaxRanks) || v[1] >= static_cast<uint64_t>(kMaxRanks))
            error("category '" + name + "': an entry names a rank above " +
                  std::to_string(kMaxRanks));
          entries.cells.push_back({static_cast<int64_t>(v[0]), static_cast<int64_t>(v[1]), v[3]});
        });
      } else if (key == "bytes") {
        have_dense = true;
        dense.line = m_line;
        int64_t row = 0;
        array([&] {
          int64_t col = 0;
          array([&] {
            uint64_t v = uint("a byte count");
            if (v != 0)
              dense.cells.push_back({row, col, v});
            ++col;
          });
          ++row;
        });
      } else {
        skip();
      }
    });
    if (origin != "application" && origin != "modules")
      fail_at(PNMPI_MAP_EFORMAT, m_path, line,
              "category '" + name + "': origin must be 'application' or 'modules'");
    if (!have_entries && !have_dense)
      fail_at(PNMPI_MAP_EFORMAT, m_path, line,
              "category '" + name + "' has neither 'entries' nor a 'bytes' matrix");
    entries.application = dense.application = origin == "application";
    entries.use = have_entries;
    dense.use = !have_entries;
    m_pending.push_back(std::move(entries));
    m_pending.push_back(std::move(dense));
  }

  std::string m_path, m_s;
  size_t m_pos = 0;
  long m_line = 1;
  std::string m_format;
  int m_version = 0;
  long m_version_line = 0, m_n_line = 0;
  int64_t m_n = 0;
  bool m_have_categories = false;
  std::vector<Pending> m_pending;
};

Matrix read_json(const std::string &path) {
  std::string text = read_file(path);
  if (text.empty())
    fail_at(PNMPI_MAP_EFORMAT, path, 0,
            "empty file: not the monitor's JSON (was the run killed before MPI_Finalize?)");
  return JsonReader(path, std::move(text)).read();
}

bool looks_like_monitor_json(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    return false;
  char head[4096];
  size_t got = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  return std::string(head, got).find("pnmpi-monitor-matrices") != std::string::npos;
}

Matrix read_dir(const std::string &dir) {
  std::vector<std::string> jsons;
  std::map<std::string, std::map<int64_t, std::string>> prefixes;
  for (const std::string &name : list_dir(dir)) {
    if (ends_with(name, ".json") && looks_like_monitor_json(join(dir, name)))
      jsons.push_back(name);
    auto [pre, rank] = split_prof_name(name);
    if (rank >= 0)
      prefixes[pre].emplace(rank, join(dir, name));
  }
  if (jsons.size() == 1)
    return read_json(join(dir, jsons[0]));
  if (jsons.size() > 1)
    fail_at(PNMPI_MAP_EINVAL, dir, 0,
            "holds " + std::to_string(jsons.size()) + " monitor JSON files (" + jsons[0] + ", " +
                jsons[1] + (jsons.size() > 2 ? ", ..." : "") + "): name one");
  if (prefixes.size() == 1) {
    std::string prefix = join(dir, prefixes.begin()->first);
    return read_prof(prefix, prof_files(prefix));
  }
  if (prefixes.size() > 1)
    fail_at(PNMPI_MAP_EINVAL, dir, 0,
            "holds .prof files of " + std::to_string(prefixes.size()) +
                " prefixes: name one prefix");
  fail_at(PNMPI_MAP_EINVAL, dir, 0, "holds no monitor output (a .json or .prof files)");
}

} // namespace

Matrix load_run(const std::string &run) {
  if (run.empty())
    throw Error(PNMPI_MAP_EINVAL, "no run given");
  if (is_dir(run))
    return read_dir(run);
  if (ends_with(run, ".json")) {
    if (!is_file(run))
      fail_at(PNMPI_MAP_EIO, run, 0, "no such file");
    return read_json(run);
  }
  auto [pre, rank] = split_prof_name(run);
  if (rank >= 0) {
    if (!is_file(run))
      fail_at(PNMPI_MAP_EIO, run, 0, "no such file");
    return read_prof(pre, prof_files(pre));
  }
  if (is_file(run + ".json"))
    return read_json(run + ".json");
  std::map<int64_t, std::string> files = prof_files(run);
  if (!files.empty())
    return read_prof(run, files);
  fail_at(PNMPI_MAP_EIO, run, 0,
          "no such file, directory or output prefix (looked for " + run + ".json and " + run +
              ".<rank>.prof)");
}

} // namespace pnmpi::mapping

#include "batch.hpp"
#include "commands.hpp"
#include "html_report.hpp"
#include "json_output.hpp"

#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <set>

#include <unistd.h>

namespace odemocap::cli {
namespace {

nlohmann::json to_json(const FileReport& r) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : r.findings) {
    nlohmann::json j{{"check", f.check},    {"severity", to_string(f.severity)},
                     {"track", f.track},    {"first", f.first},
                     {"last", f.last},      {"value", f.value},
                     {"message", f.message}};
    if (f.check == "parse-error" && r.error_line > 0) { // 0: no line (binary, or unreadable)
      j["line"] = r.error_line;
      j["column"] = r.error_column;
    }
    if (f.check == "parse-error" && r.error_byte != LoadError::k_no_byte) {
      j["byte"] = r.error_byte;
    }
    findings.push_back(std::move(j));
  }
  const bool clean = r.readable && r.findings.empty();
  return {{"file", r.path},
          {"format", r.format},
          {"bytes", r.bytes},
          {"status", !r.readable ? "unreadable"
                     : clean     ? "clean"
                                 : "findings"},
          {"findings", std::move(findings)}};
}

/// Findings grouped for one report line: how many, on how many tracks, over which samples,
/// the worst of them.
struct Group {
  const Finding* worst = nullptr;
  std::size_t count = 0;
  std::size_t first = 0;
  std::size_t last = 0;
  std::set<std::string> tracks;
};

/// Groups by check (ReportLevel::Checks) or by track and check (ReportLevel::Tracks), in the
/// order the groups first appear.
std::vector<Group> group(const std::vector<Finding>& findings, ReportLevel level) {
  std::vector<Group> groups;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const Finding& f : findings) {
    const std::string track = level == ReportLevel::Tracks ? f.track : std::string();
    const auto [it, added] = index.emplace(std::make_pair(track, f.check), groups.size());
    if (added) {
      groups.push_back({&f, 0, f.first, f.last, {}});
    }
    Group& g = groups[it->second];
    ++g.count;
    g.first = std::min(g.first, f.first);
    g.last = std::max(g.last, f.last);
    g.worst = f.value > g.worst->value ? &f : g.worst;
    g.tracks.insert(f.track);
  }
  return groups;
}

std::string track_name(const std::string& track) {
  return track.empty() ? "(file)" : printable(track);
}

void print_finding(const FileReport& r, const Finding& f) {
  if (f.check == "parse-error" && r.error_byte != LoadError::k_no_byte) {
    std::printf("  error parse-error byte %zu: %s\n", r.error_byte, printable(f.message).c_str());
    return;
  }
  if (f.check == "parse-error") {
    // A file that cannot be read at all (missing, a directory, no permission) has no position.
    std::string where;
    if (r.error_line > 0) {
      where = " line " + std::to_string(r.error_line);
      if (r.error_column > 0) {
        where += " column " + std::to_string(r.error_column);
      }
    }
    std::printf("  error parse-error%s: %s\n", where.c_str(), printable(f.message).c_str());
    return;
  }
  std::printf("  %s %s %s samples %zu-%zu: %s\n", to_string(f.severity), f.check.c_str(),
              track_name(f.track).c_str(), f.first, f.last, printable(f.message).c_str());
}

void print_group(const Group& g, ReportLevel level) {
  const Finding& f = *g.worst;
  if (level == ReportLevel::Tracks) {
    std::printf("  %s %s %s: %zu finding(s), samples %zu-%zu, worst: %s\n", to_string(f.severity),
                f.check.c_str(), track_name(f.track).c_str(), g.count, g.first, g.last,
                printable(f.message).c_str());
    return;
  }
  std::printf("  %s %s: %zu finding(s) on %zu track(s); worst %s samples %zu-%zu: %s\n",
              to_string(f.severity), f.check.c_str(), g.count, g.tracks.size(),
              track_name(f.track).c_str(), f.first, f.last, printable(f.message).c_str());
}

void print_text(const FileReport& r, ReportLevel level, std::size_t max_lines) {
  if (r.readable && r.findings.empty()) {
    std::printf("%s: clean\n", printable(r.path).c_str());
    return;
  }
  std::printf("%s: %s\n", printable(r.path).c_str(),
              !r.readable ? "unreadable"
                          : (std::to_string(r.findings.size()) + " finding(s)").c_str());
  std::size_t total = 0;
  if (level == ReportLevel::Findings || !r.readable) {
    total = r.findings.size();
    for (std::size_t i = 0; i < total && i < max_lines; ++i) {
      print_finding(r, r.findings[i]);
    }
  } else {
    const std::vector<Group> groups = group(r.findings, level);
    total = groups.size();
    for (std::size_t i = 0; i < total && i < max_lines; ++i) {
      print_group(groups[i], level);
    }
  }
  if (total > max_lines) {
    std::printf("  ... %zu more line(s) (--max-findings)\n", total - max_lines);
  }
}

} // namespace

int run_validate(const ValidateCommand& command, const LoadOptions& load,
                 const ValidateOptions& checks) {
  std::vector<std::string> files = collect_files(command.paths);
  if (command.threads > max_worker_threads()) {
    std::fprintf(stderr, "odemocap validate: -j %u: using %u worker threads (four per core)\n",
                 command.threads, max_worker_threads());
  }
  if (command.shard_count > 1) {
    files = shard(files, command.shard_index, command.shard_count);
  }
  Progress progress;
  std::mutex progress_mutex;
  std::size_t shown = 0; // workers finish out of order: a line older than the one shown is not
                         // printed (it would come after the final one, on the summary's line)
  if (::isatty(STDERR_FILENO) != 0) {
    progress = [&](std::size_t done, std::size_t total, const std::string& path) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      if (done <= shown) {
        return;
      }
      shown = done;
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, printable(path).c_str());
      if (done == total) {
        std::fprintf(stderr, "\n");
      }
    };
  }
  const std::vector<FileReport> reports =
      validate_files(files, load, checks, command.threads, progress);

  std::size_t readable = 0, clean = 0, failing = 0;
  for (const FileReport& r : reports) {
    readable += r.readable;
    clean += r.readable && r.findings.empty();
    bool fails = !r.readable;
    for (const Finding& f : r.findings) {
      fails = fails || f.severity == Severity::Error ||
              (command.strict && f.severity == Severity::Warning);
    }
    failing += fails;
  }
  nlohmann::json all = nlohmann::json::array();
  for (const FileReport& r : reports) {
    if (command.format == OutputFormat::Text) {
      print_text(r, command.report, command.max_findings);
    } else if (command.format == OutputFormat::JsonLines) {
      print_json(to_json(r), -1);
    } else {
      all.push_back(to_json(r));
    }
  }
  const nlohmann::json summary{{"files", reports.size()},
                               {"readable", readable},
                               {"clean", clean},
                               {"with_findings", readable - clean},
                               {"unreadable", reports.size() - readable},
                               {"failing", failing},
                               {"strict", command.strict}};
  if (command.format == OutputFormat::Json) {
    print_json({{"files", std::move(all)}, {"summary", summary}}, 2);
  } else if (command.format == OutputFormat::Text) {
    std::printf("%zu file(s): %zu clean, %zu with findings, %zu unreadable; %zu failing (%s)\n",
                reports.size(), clean, readable - clean, reports.size() - readable, failing,
                command.strict ? "strict: warnings and errors fail"
                               : "errors and unreadable files fail; --strict: warnings too");
  }
  std::cout.flush();
  if (!command.html.empty()) {
    try {
      save_html_report(command.html, reports, command.strict);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "odemocap validate: %s\n", e.what());
      return 2;
    }
  }
  if (readable == 0) {
    std::fprintf(stderr, "odemocap validate: %s\n",
                 reports.empty() ? "no capture files found" : "no file could be read");
    return 2;
  }
  return failing > 0 ? 1 : 0;
}

} // namespace odemocap::cli

#include "batch.hpp"
#include "commands.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <mutex>

#include <unistd.h>

namespace odemocap::cli {
namespace {

nlohmann::json to_json(const FileReport& r) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : r.findings) {
    nlohmann::json j{{"check", f.check},   {"severity", to_string(f.severity)},
                     {"track", f.track},   {"first", f.first},
                     {"last", f.last},     {"value", f.value},
                     {"message", f.message}};
    if (f.check == "parse-error") {
      j["line"] = r.error_line;
      j["column"] = r.error_column;
    }
    findings.push_back(std::move(j));
  }
  const bool clean = r.readable && r.findings.empty();
  return {{"file", r.path},
          {"format", r.format},
          {"bytes", r.bytes},
          {"status", !r.readable ? "unreadable" : clean ? "clean" : "findings"},
          {"findings", std::move(findings)}};
}

void print_text(const FileReport& r) {
  if (r.readable && r.findings.empty()) {
    std::printf("%s: clean\n", r.path.c_str());
    return;
  }
  std::printf("%s: %s\n", r.path.c_str(), r.readable ? "findings" : "unreadable");
  for (const Finding& f : r.findings) {
    if (f.check == "parse-error") {
      std::printf("  error parse-error line %zu column %zu: %s\n", r.error_line, r.error_column,
                  f.message.c_str());
    } else {
      std::printf("  %s %s %s samples %zu-%zu: %s\n", to_string(f.severity), f.check.c_str(),
                  f.track.empty() ? "(file)" : f.track.c_str(), f.first, f.last, f.message.c_str());
    }
  }
}

} // namespace

int run_validate(const ValidateCommand& command, const LoadOptions& load,
                 const ValidateOptions& checks) {
  std::vector<std::string> files = collect_files(command.paths);
  if (command.shard_count > 1) {
    files = shard(files, command.shard_index, command.shard_count);
  }
  Progress progress;
  std::mutex progress_mutex;
  if (::isatty(STDERR_FILENO) != 0) {
    progress = [&](std::size_t done, std::size_t total, const std::string& path) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, path.c_str());
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
      print_text(r);
    } else if (command.format == OutputFormat::JsonLines) {
      std::cout << to_json(r).dump() << '\n';
    } else {
      all.push_back(to_json(r));
    }
  }
  const nlohmann::json summary{{"files", reports.size()},
                               {"readable", readable},
                               {"clean", clean},
                               {"failing", failing}};
  if (command.format == OutputFormat::Json) {
    std::cout << nlohmann::json{{"files", std::move(all)}, {"summary", summary}}.dump(2) << '\n';
  } else if (command.format == OutputFormat::Text) {
    std::printf("%zu file(s): %zu clean, %zu with findings, %zu unreadable; %zu failing%s\n",
                reports.size(), clean, readable - clean, reports.size() - readable, failing,
                command.strict ? " (strict: warnings fail)" : "");
  }
  std::cout.flush();
  if (readable == 0) {
    std::fprintf(stderr, "odemocap validate: %s\n",
                 reports.empty() ? "no capture files found" : "no file could be read");
    return 2;
  }
  return failing > 0 ? 1 : 0;
}

} // namespace odemocap::cli

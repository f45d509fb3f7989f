#include "html_report.hpp"

#include <odemocap/mocap.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>

namespace odemocap::cli {
namespace {

/// Text safe inside HTML elements and attribute values (and valid UTF-8, via printable).
std::string escape(const std::string& text) {
  std::string out;
  for (char c : printable(text)) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string fixed(double v, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

/// The colour a finding is drawn in: by check where one says more than the severity.
const char* colour_of(const Finding& f) {
  if (f.check == "parse-error") {
    return "#b00020";
  }
  if (f.check == "gap" || f.check == "dropped-frames") {
    return "#9e9e9e";
  }
  if (f.check == "frozen") {
    return "#1e88e5";
  }
  if (f.check == "hemisphere-flip") {
    return "#8e24aa";
  }
  return f.severity == Severity::Error ? "#d32f2f"
         : f.severity == Severity::Warning ? "#f57c00"
                                           : "#43a047";
}

struct Counts {
  std::size_t errors = 0, warnings = 0, infos = 0;
};

Counts count(const FileReport& r) {
  Counts c;
  for (const Finding& f : r.findings) {
    (f.severity == Severity::Error     ? c.errors
     : f.severity == Severity::Warning ? c.warnings
                                       : c.infos) += 1;
  }
  return c;
}

constexpr int k_width = 720;  // px of a timeline
constexpr int k_row = 16;     // px per track
constexpr int k_label = 160;  // px for the track names

/// One file's timelines: a row per track (samples 0 to n-1 left to right) with a mark over
/// the samples of each finding on it; findings on the whole file span every row.
void timelines(std::ostream& out, const FileReport& r) {
  std::map<std::string, std::vector<const Finding*>> by_track;
  std::vector<const Finding*> whole_file;
  for (const Finding& f : r.findings) {
    (f.track.empty() ? whole_file : by_track[f.track]).push_back(&f);
  }
  const std::size_t rows = std::max<std::size_t>(1, r.tracks.size());
  const int height = static_cast<int>(rows) * k_row + 4;
  out << "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
      << k_label + k_width + 4 << "\" height=\"" << height << "\" role=\"img\" aria-label=\""
      << "findings of " << escape(r.path) << " over the samples of each track\">\n";
  for (const Finding* f : whole_file) {
    out << "<rect x=\"" << k_label << "\" y=\"0\" width=\"" << k_width << "\" height=\"" << height
        << "\" fill=\"" << colour_of(*f) << "\" fill-opacity=\"0.25\"><title>"
        << escape(f->check + ": " + f->message) << "</title></rect>\n";
  }
  for (std::size_t i = 0; i < r.tracks.size(); ++i) {
    const auto& [name, samples] = r.tracks[i];
    const int y = static_cast<int>(i) * k_row + 2;
    out << "<text x=\"2\" y=\"" << y + 11 << "\" font-size=\"11\">" << escape(name) << "</text>"
        << "<rect x=\"" << k_label << "\" y=\"" << y + 6 << "\" width=\"" << k_width
        << "\" height=\"2\" fill=\"#cfd8dc\"/>\n";
    const double per_sample =
        samples > 1 ? static_cast<double>(k_width) / static_cast<double>(samples - 1) : 0.0;
    for (const Finding* f : by_track[name]) {
      const double x = k_label + per_sample * static_cast<double>(f->first);
      const double w = std::max(2.0, per_sample * static_cast<double>(f->last - f->first));
      out << "<rect class=\"finding\" x=\"" << fixed(x, 1) << "\" y=\"" << y + 1 << "\" width=\""
          << fixed(w, 1) << "\" height=\"" << k_row - 4 << "\" fill=\"" << colour_of(*f)
          << "\"><title>" << escape(f->check + " samples " + std::to_string(f->first) + "-" +
                                    std::to_string(f->last) + ": " + f->message)
          << "</title></rect>\n";
    }
  }
  out << "</svg>\n<p class=\"message\">each row: a track's samples, first to last ("
      << fixed(r.duration, 3) << " s); hover a mark for the finding</p>\n";
}

constexpr const char* k_style = R"(body{font-family:sans-serif;margin:1.5em;color:#212121}
table{border-collapse:collapse;margin-bottom:1.5em}th,td{padding:3px 10px;border-bottom:1px solid #e0e0e0;text-align:left}
th{cursor:pointer;background:#eceff1;user-select:none}th:hover{background:#cfd8dc}
td.n{text-align:right}.bad{color:#b00020;font-weight:bold}.warn{color:#e65100}
section{margin:1em 0 2em}h2{font-size:1.05em;margin:0.3em 0}.legend span{display:inline-block;margin-right:1em}
.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}
.message{font-family:monospace;font-size:12px;white-space:pre-wrap})";

/// Sorts the summary by the clicked column (numbers by value), again to reverse: no library.
constexpr const char* k_script = R"(document.querySelectorAll('#summary th').forEach(function(th,col){
th.addEventListener('click',function(){var body=document.querySelector('#summary tbody');
var rows=Array.prototype.slice.call(body.rows);var up=th.dataset.order!=='asc';th.dataset.order=up?'asc':'desc';
rows.sort(function(a,b){var x=a.cells[col].dataset.v||a.cells[col].textContent,y=b.cells[col].dataset.v||b.cells[col].textContent;
var nx=parseFloat(x),ny=parseFloat(y);var c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return up?c:-c;});
rows.forEach(function(r){body.appendChild(r);});});});)";

} // namespace

void write_html_report(std::ostream& out, const std::vector<FileReport>& reports, bool strict) {
  std::size_t failing = 0;
  for (const FileReport& r : reports) {
    const Counts c = count(r);
    failing += !r.readable || c.errors > 0 || (strict && c.warnings > 0);
  }
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      << "<title>odemocap validate: " << reports.size() << " files</title><style>" << k_style
      << "</style></head><body>\n<h1>odemocap validate</h1>\n<p id=\"totals\">" << reports.size()
      << " file(s), " << failing << " failing"
      << (strict ? " (strict: warnings fail too)" : " (errors and unreadable files fail)")
      << ". Click a column to sort; a file's name leads to its timelines.</p>\n";
  out << "<p class=\"legend\">";
  for (const auto& [label, colour] :
       std::vector<std::pair<const char*, const char*>>{{"error", "#d32f2f"},
                                                        {"warning", "#f57c00"},
                                                        {"info", "#43a047"},
                                                        {"gap", "#9e9e9e"},
                                                        {"frozen", "#1e88e5"},
                                                        {"flip", "#8e24aa"},
                                                        {"parse error", "#b00020"}}) {
    out << "<span><i style=\"background:" << colour << "\"></i>" << label << "</span>";
  }
  out << "</p>\n<table id=\"summary\"><thead><tr><th>file</th><th>format</th><th>duration "
         "(s)</th><th>tracks</th><th>errors</th><th>warnings</th><th>infos</th></tr></thead>"
         "<tbody>\n";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const FileReport& r = reports[i];
    const Counts c = count(r);
    out << "<tr class=\"file\"><td><a href=\"#f" << i << "\">" << escape(r.path) << "</a></td><td>"
        << (r.readable ? escape(r.format) : "<span class=\"bad\">unreadable</span>")
        << "</td><td class=\"n\" data-v=\"" << fixed(r.duration, 6) << "\">"
        << fixed(r.duration, 2) << "</td><td class=\"n\">" << r.tracks.size()
        << "</td><td class=\"n" << (c.errors ? " bad" : "") << "\">" << c.errors
        << "</td><td class=\"n" << (c.warnings ? " warn" : "") << "\">" << c.warnings
        << "</td><td class=\"n\">" << c.infos << "</td></tr>\n";
  }
  out << "</tbody></table>\n";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const FileReport& r = reports[i];
    // Files with findings open, clean ones folded: 500 takes are looked over in minutes.
    out << "<section id=\"f" << i << "\"><details" << (r.findings.empty() ? "" : " open")
        << "><summary><h2 style=\"display:inline\">" << escape(r.path) << "</h2> "
        << r.findings.size() << " finding(s)</summary>\n";
    if (!r.readable) {
      for (const Finding& f : r.findings) {
        std::string where;
        if (r.error_line > 0) {
          where = " (line " + std::to_string(r.error_line) + ", column " +
                  std::to_string(r.error_column) + ")";
        } else if (r.error_byte != LoadError::k_no_byte) {
          where = " (byte " + std::to_string(r.error_byte) + ")";
        }
        out << "<p class=\"message bad\">cannot be read" << escape(where) << ": "
            << escape(f.message) << "</p>\n";
      }
      out << "</details></section>\n";
      continue;
    }
    timelines(out, r);
    out << "</details></section>\n";
  }
  out << "<script>" << k_script << "</script>\n</body></html>\n";
}

void save_html_report(const std::string& path, const std::vector<FileReport>& reports,
                      bool strict) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw std::runtime_error("cannot write " + path);
  }
  write_html_report(out, reports, strict);
  out.flush();
  if (!out) {
    throw std::runtime_error("writing " + path + " failed");
  }
}

} // namespace odemocap::cli

#include "plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace odemocap::replay {
namespace {

constexpr int k_width = 900;
constexpr int k_panel = 190;  // px per panel, plot area
constexpr int k_left = 70;    // px for the value axis
constexpr int k_top = 50;     // px for the title and legend
constexpr int k_gap = 40;     // px between panels
constexpr int k_plot_width = k_width - k_left - 20;
const char* const k_colours[] = {"#1e88e5", "#d81b60", "#43a047", "#f4511e", "#8e24aa"};

std::string number(double v, const char* pattern = "%.3g") {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, pattern, v);
  return buffer;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c == '<' ? std::string("&lt;") : c == '>' ? std::string("&gt;")
           : c == '&' ? std::string("&amp;") : std::string(1, c);
  }
  return out;
}

/// A tick step of 1, 2 or 5 times a power of ten giving about five ticks up to `top`.
double tick_step(double top) {
  const double raw = top / 5.0;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw) {
      return m * power;
    }
  }
  return 10.0 * power;
}

struct Panel {
  const char* title;
  double (*value)(const StepFigures&);
};

} // namespace

void write_plot(std::ostream& out, const std::string& title, const std::vector<PlotRun>& runs) {
  const Panel panels[] = {
      {"hand lock gap (mm)", [](const StepFigures& f) { return 1000.0 * f.lock_gap_m; }},
      {"chain joint gap, largest (mm)", [](const StepFigures& f) { return 1000.0 * f.chain_gap_m; }},
      {"track error, largest body (deg)", [](const StepFigures& f) { return f.track_error_deg; }},
  };
  double end = 0.0;
  for (const PlotRun& r : runs) {
    if (!r.series.empty()) {
      end = std::max(end, r.series.back().time);
    }
  }
  end = end > 0.0 ? end : 1.0;
  const int height = k_top + 3 * (k_panel + k_gap);
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << k_width << "\" height=\""
      << height << "\" viewBox=\"0 0 " << k_width << ' ' << height
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
         "fill=\"white\"/>\n<text x=\"10\" y=\"20\" font-size=\"15\">"
      << escape(title) << "</text>\n";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const int x = k_left + static_cast<int>(r) * 150;
    out << "<rect x=\"" << x << "\" y=\"30\" width=\"14\" height=\"4\" fill=\""
        << k_colours[r % 5] << "\"/><text x=\"" << x + 18 << "\" y=\"36\">" << escape(runs[r].name)
        << "</text>\n";
  }
  for (int p = 0; p < 3; ++p) {
    const Panel& panel = panels[p];
    const int top = k_top + p * (k_panel + k_gap) + 20;
    double peak = 0.0;
    for (const PlotRun& r : runs) {
      for (const StepFigures& f : r.series) {
        peak = std::max(peak, panel.value(f));
      }
    }
    const double step = peak > 0.0 ? tick_step(peak) : 1.0;
    const double axis_top = peak > 0.0 ? step * std::ceil(peak / step) : 1.0;
    out << "<text x=\"" << k_left << "\" y=\"" << top - 6 << "\" font-weight=\"bold\">"
        << panel.title << "</text>\n";
    out << "<rect x=\"" << k_left << "\" y=\"" << top << "\" width=\"" << k_plot_width
        << "\" height=\"" << k_panel << "\" fill=\"none\" stroke=\"#90a4ae\"/>\n";
    for (double v = 0.0; v <= axis_top * (1 + 1e-9); v += step) {
      const double y = top + k_panel * (1.0 - v / axis_top);
      out << "<line x1=\"" << k_left << "\" x2=\"" << k_left + k_plot_width << "\" y1=\""
          << number(y, "%.1f") << "\" y2=\"" << number(y, "%.1f")
          << "\" stroke=\"#eceff1\"/><text x=\"" << k_left - 6 << "\" y=\""
          << number(y + 4, "%.1f") << "\" text-anchor=\"end\">" << number(v) << "</text>\n";
    }
    const double t_step = tick_step(end);
    for (double t = 0.0; t <= end * (1 + 1e-9); t += t_step) {
      const double x = k_left + k_plot_width * t / end;
      out << "<text x=\"" << number(x, "%.1f") << "\" y=\"" << top + k_panel + 14
          << "\" text-anchor=\"middle\">" << number(t) << (p == 2 && t == 0.0 ? " s" : "")
          << "</text>\n";
    }
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const std::vector<StepFigures>& s = runs[r].series;
      if (s.empty()) {
        continue;
      }
      // At most two points per pixel column (the column's least and largest): peaks survive.
      out << "<polyline class=\"series\" fill=\"none\" stroke-width=\"1.2\" stroke=\""
          << k_colours[r % 5] << "\" points=\"";
      const std::size_t columns = static_cast<std::size_t>(k_plot_width);
      std::size_t i = 0;
      for (std::size_t c = 0; c < columns && i < s.size(); ++c) {
        const double column_end = end * static_cast<double>(c + 1) / static_cast<double>(columns);
        double low = INFINITY, high = -INFINITY;
        for (; i < s.size() && s[i].time <= column_end; ++i) {
          low = std::min(low, panel.value(s[i]));
          high = std::max(high, panel.value(s[i]));
        }
        if (!(high >= low)) {
          continue;
        }
        const double x = k_left + static_cast<double>(c);
        for (double v : {low, high}) {
          out << number(x, "%.1f") << ','
              << number(top + k_panel * (1.0 - std::min(v, axis_top) / axis_top), "%.1f") << ' ';
        }
      }
      out << "\"/>\n";
    }
  }
  out << "</svg>\n";
}

} // namespace odemocap::replay

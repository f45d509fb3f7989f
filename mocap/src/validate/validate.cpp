#include "checks.hpp"
#include "math/rates.hpp"

#include <odemocap/error.hpp>
#include <odemocap/plausibility.hpp>
#include <odemocap/validate.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

namespace odemocap {
namespace {

std::string text(double v) {
  return detail::describe(std::round(v * 1000.0) / 1000.0);
}

class Checker {
public:
  Checker(const ValidateOptions& options, const char* unit, std::vector<Finding>& out)
      : o_(options), out_(out), unit_(unit) {}

  void track(const Track& t) {
    t_ = &t;
    if (t.valid_count() == 0 && !t.empty()) {
      add("no-valid-sample", Severity::Warning, 0, t.size() - 1, static_cast<double>(t.size()),
          "none of the " + std::to_string(t.size()) +
              " samples holds a pose (a column declared but never filled)");
      return;
    }
    tidied();
    gaps();
    if (t.valid_count() < 2) {
      return;
    }
    sampling();
    motion();
    frozen();
  }

  void skeleton(const Skeleton& s, double scale) {
    for (std::size_t j = 0; j < s.joints.size(); ++j) {
      const Joint& joint = s.joints[j];
      const double length = norm(joint.offset) * scale;
      if (joint.parent < 0) {
        continue; // a root's OFFSET places the skeleton; it is not a bone
      }
      if (!joint.end_site && length == 0.0) {
        add("zero-bone", Severity::Info, joint.name, 0, 0, 0.0,
            "joint '" + joint.name + "' sits on its parent (zero OFFSET)");
      } else if (length > o_.max_bone_length) {
        add("absurd-bone", Severity::Warning, joint.name, 0, 0, length,
            "joint '" + joint.name + "' is " + text(length) + " from its parent (limit " +
                text(o_.max_bone_length) + ")");
      }
    }
  }

private:
  /// Records a finding; one that continues the previous finding of the same check on the same
  /// track (overlapping or adjacent samples) extends it instead, keeping the peak value, even
  /// when other checks' findings came in between.
  void add(const char* check, Severity severity, const std::string& track, std::size_t first,
           std::size_t last, double value, const std::string& message) {
    const auto key = std::make_pair(track, std::string(check));
    const auto previous_index = last_.find(key);
    if (previous_index != last_.end()) {
      Finding& previous = out_[previous_index->second];
      if (first <= previous.last + 1 && first >= previous.first) {
        previous.last = std::max(previous.last, last);
        if (value > previous.value) {
          previous.value = value;
          previous.message = message;
        }
        return;
      }
    }
    last_[key] = out_.size();
    out_.push_back({check, severity, track, first, last, value, message});
  }
  void add(const char* check, Severity severity, std::size_t first, std::size_t last, double value,
           const std::string& message) {
    add(check, severity, t_->name(), first, last, value, message);
  }

  /// What loading tidied: hemisphere flips (harmless, info) and quaternions off unit length.
  void tidied() {
    const Track& t = *t_;
    if (t.hemisphere_flips() > 0) {
      const auto flips = static_cast<double>(t.hemisphere_flips());
      add("hemisphere-flip", Severity::Info, t.first_flip(), t.last_flip(), flips,
          text(flips) + " sign change(s) between consecutive quaternions (q and -q are the same "
                        "rotation)");
    }
    if (t.max_unit_deviation() > o_.unit_tolerance) {
      add("quaternion-norm", Severity::Warning, t.max_unit_deviation_sample(),
          t.max_unit_deviation_sample(), t.max_unit_deviation(),
          "a quaternion is off unit length by " + detail::describe(t.max_unit_deviation()) +
              " (tolerance " + detail::describe(o_.unit_tolerance) + ")");
    }
  }

  void gaps() {
    const Track& t = *t_;
    for (std::size_t i = 0; i < t.size();) {
      if (t.valid(i)) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j + 1 < t.size() && !t.valid(j + 1)) {
        ++j;
      }
      const auto length = static_cast<double>(j - i + 1);
      add("gap", Severity::Warning, i, j, length,
          text(length) + " sample(s) without a pose (t " + text(t.time(i)) + " to " +
              text(t.time(j)) + " s)");
      i = j + 1;
    }
  }

  void sampling() {
    const Track& t = *t_;
    std::vector<double> intervals;
    for (std::size_t i = 1; i < t.size(); ++i) {
      intervals.push_back(t.time(i) - t.time(i - 1));
    }
    const double median = t.median_interval();
    std::size_t irregular = 0, first_irregular = 0;
    for (std::size_t i = 0; i < intervals.size(); ++i) {
      const double ratio = intervals[i] / median;
      if (ratio >= o_.dropped_frame_factor) {
        const double missing = std::round(ratio) - 1.0;
        add("dropped-frames", Severity::Warning, i, i + 1, missing,
            "about " + text(missing) + " frame(s) missing: " + text(intervals[i]) +
                " s between samples, " + text(median) + " s usually");
      } else if (std::fabs(ratio - 1.0) > o_.irregular_tolerance) {
        first_irregular = irregular++ == 0 ? i : first_irregular;
      }
    }
    if (irregular > 0) {
      add("irregular-sampling", Severity::Info, first_irregular, first_irregular + 1,
          static_cast<double>(irregular),
          text(static_cast<double>(irregular)) + " interval(s) differ from the median " +
              text(median) + " s by more than " + text(100 * o_.irregular_tolerance) + "%");
    }
  }

  /// Speeds and accelerations between consecutive valid samples (across a gap the interval
  /// spans it).
  void motion() {
    const Track& t = *t_;
    const auto& v = t.valid_indices();
    Vec3 previous_velocity;
    double previous_dt = 0.0;
    bool previous_spike = false; // an acceleration next to a speed spike is the same defect
    for (std::size_t k = 1; k < v.size(); ++k) {
      const std::size_t a = v[k - 1], b = v[k];
      const double dt = t.time(b) - t.time(a);
      const Vec3 velocity = (t.position(b) - t.position(a)) / dt;
      const double speed = norm(velocity);
      const double spin = norm(detail::geodesic_rate(t.orientation(a), t.orientation(b), 1.0 / dt));
      if (spin > o_.max_angular_speed) {
        add("angular-speed-spike", Severity::Warning, a, b, spin,
            "turns at " + text(spin) + " rad/s (limit " + text(o_.max_angular_speed) + ")");
      }
      const bool spike = speed > o_.max_linear_speed;
      if (spike) {
        add("linear-speed-spike", Severity::Warning, a, b, speed,
            "moves at " + text(speed) + " " + unit_ + "/s (limit " + text(o_.max_linear_speed) +
                ")");
      } else if (k > 1 && !previous_spike) {
        const double acceleration = norm(velocity - previous_velocity) / (0.5 * (dt + previous_dt));
        if (acceleration > o_.max_linear_acceleration) {
          add("acceleration-spike", Severity::Warning, v[k - 2], b, acceleration,
              "accelerates at " + text(acceleration) + " " + unit_ + "/s^2 (limit " +
                  text(o_.max_linear_acceleration) + ")");
        }
      }
      previous_velocity = velocity;
      previous_dt = dt;
      previous_spike = spike;
    }
  }

  void frozen() {
    const Track& t = *t_;
    const auto same = [&](std::size_t a, std::size_t b) {
      const Quat& p = t.orientation(a);
      const Quat& q = t.orientation(b);
      return t.valid(a) && t.valid(b) && t.position(a).x == t.position(b).x &&
             t.position(a).y == t.position(b).y && t.position(a).z == t.position(b).z &&
             p.w == q.w && p.x == q.x && p.y == q.y && p.z == q.z;
    };
    for (std::size_t i = 0; i + 1 < t.size();) {
      std::size_t j = i;
      while (j + 1 < t.size() && same(j, j + 1)) {
        ++j;
      }
      if (j - i + 1 > o_.max_frozen_samples) {
        const auto length = static_cast<double>(j - i + 1);
        add("frozen", Severity::Warning, i, j, length,
            text(length) + " identical samples in a row (limit " +
                text(static_cast<double>(o_.max_frozen_samples)) + ")");
      }
      i = j + 1;
    }
  }

  const ValidateOptions& o_;
  std::vector<Finding>& out_;
  /// Index in out_ of the latest finding of each (track, check).
  std::map<std::pair<std::string, std::string>, std::size_t> last_;
  const Track* t_ = nullptr;
  std::string unit_; ///< label of the stored length unit
};

} // namespace

void check_options(const ValidateOptions& o) {
  const auto require = [](bool ok, const char* name, double value, const char* range) {
    if (!ok) {
      throw MocapError(std::string("ValidateOptions: ") + name + " must be " + range + ", got " +
                       detail::describe(value));
    }
  };
  const auto positive = [](double v) { return v > 0.0 && std::isfinite(v); };
  require(positive(o.max_angular_speed), "max_angular_speed", o.max_angular_speed,
          "finite and > 0");
  require(positive(o.max_linear_speed), "max_linear_speed", o.max_linear_speed, "finite and > 0");
  require(positive(o.max_linear_acceleration), "max_linear_acceleration", o.max_linear_acceleration,
          "finite and > 0");
  require(o.dropped_frame_factor > 1.0 && std::isfinite(o.dropped_frame_factor),
          "dropped_frame_factor", o.dropped_frame_factor, "finite and > 1");
  require(o.irregular_tolerance > 0.0 && o.irregular_tolerance < 1.0, "irregular_tolerance",
          o.irregular_tolerance, "in (0, 1)");
  require(o.max_frozen_samples >= 1, "max_frozen_samples",
          static_cast<double>(o.max_frozen_samples), ">= 1");
  require(positive(o.max_bone_length), "max_bone_length", o.max_bone_length, "finite and > 0");
  require(positive(o.unit_tolerance), "unit_tolerance", o.unit_tolerance, "finite and > 0");
}

std::vector<Finding> validate_capture(const Capture& capture, const ValidateOptions& options) {
  check_options(options);
  std::vector<Finding> findings;
  Checker checker(options, capture.info().length_label(), findings);
  for (const std::string& defect : capture.info().tolerated) {
    findings.push_back({"tolerated", Severity::Warning, "", 0, 0, 0.0, defect});
  }
  for (const Track& t : capture.tracks()) {
    checker.track(t);
  }
  if (const Skeleton* s = capture.skeleton()) {
    checker.skeleton(*s, capture.info().length_scale);
  }
  for (Finding& f : check_plausibility(capture)) {
    findings.push_back(std::move(f));
  }
  return findings;
}

const char* to_string(Severity severity) {
  switch (severity) {
  case Severity::Info: return "info";
  case Severity::Warning: return "warning";
  case Severity::Error: return "error";
  }
  return "?";
}

} // namespace odemocap

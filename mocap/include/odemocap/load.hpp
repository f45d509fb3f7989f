#pragma once
/// Loading captures from files: BVH, rigid-body CSV, OptiTrack Motive CSV, C3D, Qualisys TSV
/// (6D and 3D), Vicon Nexus CSV, OpenSim TRC, Acclaim ASF/AMC and Xsens MVNX.

#include <odemocap/capture.hpp>
#include <odemocap/error.hpp>
#include <odemocap/skeleton.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace odemocap {

/// A file that cannot be loaded: where (path; in text, the 1-based line and column, 0 when not
/// known; in binary formats, the byte offset) and why, in words a user can act on. what()
/// reads "path:line:column: message" or "path: byte N: message".
class LoadError : public MocapError {
public:
  /// No byte offset.
  static constexpr std::size_t k_no_byte = static_cast<std::size_t>(-1);

  LoadError(std::string path, std::size_t line, std::size_t column, const std::string& message);
  /// An error in a binary file at byte `offset`.
  static LoadError at_byte(std::string path, std::size_t offset, const std::string& message);

  const std::string& path() const { return path_; }
  std::size_t line() const { return line_; }
  std::size_t column() const { return column_; }
  /// Byte offset in a binary file, or k_no_byte.
  std::size_t byte() const { return byte_; }
  /// The message without the location.
  const std::string& message() const { return message_; }

private:
  std::string path_;
  std::size_t line_;
  std::size_t column_;
  std::size_t byte_ = k_no_byte;
  std::string message_;
};

/// Capture file formats.
enum class Format {
  Auto,         ///< decide from the content
  Bvh,          ///< Biovision hierarchy
  RigidBodyCsv, ///< generic rigid-body CSV (see mocap/README.md: a header naming the columns)
  MotiveCsv,    ///< OptiTrack Motive CSV export
  C3d,          ///< C3D (Intel or DEC): markers as position-only tracks, ROTATION group as bodies
  QualisysTsv,  ///< Qualisys Track Manager TSV export: 6D (rigid bodies) or 3D (markers)
  ViconCsv,     ///< Vicon Nexus CSV export: the Trajectories block's markers
  Trc,          ///< OpenSim TRC marker file
  AsfAmc,       ///< Acclaim AMC motion with its ASF skeleton (CMU's native format)
  Mvnx,         ///< Xsens MVN XML export: segment orientations and positions
};

/// How a BVH root's position channels combine with its OFFSET.
enum class BvhRootPositions {
  Auto,     ///< Absolute when the OFFSET equals the first frame's channels, else Additive
  Additive, ///< OFFSET + channels, as the BVH description says
  Absolute, ///< the channels replace the OFFSET, as Blender and three.js read them
};

/// Order of the four quaternion columns of a generic CSV whose columns are named q0..q3.
enum class QuatOrder { WXYZ, XYZW };

/// How to load a capture. The defaults keep the numbers of files that declare no length unit
/// (BVH, generic CSV); files that declare one (Motive, C3D, Qualisys) are always in metres.
struct LoadOptions {
  Format format = Format::Auto;
  /// Positions in metres whatever the file: a file that declares no unit gets one inferred
  /// (BVH: the skeleton's rest-pose size against a person's; generic CSV: the size of the
  /// coordinates against a capture volume's), with the inference and its evidence in
  /// CaptureInfo::notes. The command-line tool and the demo set it.
  bool to_metres = false;
  /// Metres per length unit of the file (e.g. 0.01 for cm, 0.0254 / 0.45 for CMU BVH units),
  /// overriding what the file declares and any inference; 0: not given.
  double unit_in_metres = 0.0;
  /// Factor applied to every position after the file's unit is converted to metres (or to
  /// the file's numbers when the unit stays unknown).
  double length_scale = 1.0;
  /// When set, positions and orientations are rotated from the file's up axis (Y for BVH and
  /// Motive, Z for generic CSV and Qualisys TSV, POINT:Y_SCREEN for C3D, or else the markers'
  /// or Z) to this one by the shortest rotation, e.g. Y-up into ODE's usual Z-up: p' = C p,
  /// q' = C q (body frames keep their own axes).
  std::optional<Axis> up_axis;
  /// Names of the tracks to keep; empty keeps all. A name the file lacks is an error.
  std::vector<std::string> tracks;
  /// Generic CSV: order of columns named <body>.q0 .. <body>.q3.
  QuatOrder quat_order = QuatOrder::WXYZ;
  /// Sample rate (Hz) of files that do not state one: generic CSV with a frame column but no
  /// time column, and AMC (default 120, CMU's).
  double frame_rate = 0.0;
  /// CSV: scale every non-degenerate quaternion to unit length instead of refusing those off
  /// by more than Track::k_unit_tolerance; how many were changed is in the capture's notes.
  bool renormalize = false;
  /// BVH, ASF/AMC: also make tracks for End Sites ("<parent>_End"; for ASF the ends of the
  /// bones).
  bool end_sites = false;
  /// ASF/AMC: the .asf skeleton of an .amc; empty: <subject>.asf beside <subject>_<trial>.amc,
  /// or the only .asf in the AMC's directory.
  std::string skeleton_file;
  /// BVH: how root position channels combine with the OFFSET (see mocap/README.md, "BVH").
  BvhRootPositions bvh_root_positions = BvhRootPositions::Auto;
  /// Refuse what is otherwise loaded with a note in CaptureInfo::tolerated, in every format:
  /// e.g. a BVH `Frames:`, TRC `NumFrames` or QTM `NO_OF_FRAMES` that disagrees with the rows,
  /// a C3D data block cut short or with a DATA_START of 0, an undeclared length unit.
  bool strict = false;
  /// Largest file accepted, in bytes (most formats are read whole; see load_capture).
  std::size_t max_file_bytes = std::size_t{1} << 31;
};

/// Loads the capture in the file at `path`; the format comes from the content (see
/// detect_format) unless options.format says otherwise. Throws LoadError. C3D files (1 MiB
/// windows), and Motive and rigid-body CSV files over 1 MiB (64 KiB chunks), are read a piece
/// at a time, never whole: the load's memory is the capture's plus a few MiB. Other formats are
/// read whole first.
Capture load_capture(const std::string& path, const LoadOptions& options = {});

/// Loads a capture from text in memory; `source` names it in errors and CaptureInfo.
Capture load_capture_from_memory(std::string_view text, std::string_view source,
                                 const LoadOptions& options = {});

/// The format of capture data: byte 2 = 0x50 is C3D, "HIERARCHY" first is BVH,
/// "Format Version" first is Motive, "NO_OF_FRAMES" first is Qualisys TSV, "PathFileType" first
/// is TRC, a Vicon block name
/// ("Trajectories", "Devices", ...) alone on the first line is Vicon CSV, a delimited header
/// row is generic CSV. Throws LoadError when it is none of these.
Format detect_format(std::string_view text, std::string_view source);

/// Per-format entry points on text in memory (tests and fuzzers use them directly).
Capture parse_bvh(std::string_view text, std::string_view source, const LoadOptions& options = {});
/// The BVH hierarchy and raw channels only, without forward kinematics (parse_bvh is this
/// followed by forward_kinematics for every frame). Throws LoadError.
Skeleton parse_bvh_skeleton(std::string_view text, std::string_view source);
Capture parse_rigid_body_csv(std::string_view text, std::string_view source,
                             const LoadOptions& options = {});
Capture parse_motive_csv(std::string_view text, std::string_view source,
                         const LoadOptions& options = {});

/// C3D bytes: points become position-only tracks (their labels as names; residual < 0 is a
/// gap), POINT:UNITS converted to metres, the ROTATION group (6DOF) becomes rigid-body tracks;
/// analog data is stepped over. Times are (frame number - 1) / POINT:RATE. Throws LoadError
/// naming the byte offset for truncated files, wrong pointers and absurd counts.
Capture parse_c3d(std::string_view data, std::string_view source, const LoadOptions& options = {});
/// Qualisys TSV: 6D bodies (positions in mm converted to metres, Z up; residual -1 or NaN is
/// a gap) or 3D markers (position-only tracks; empty cells or 0, 0, 0 are gaps).
Capture parse_qualisys_tsv(std::string_view text, std::string_view source,
                           const LoadOptions& options = {});
/// Vicon Nexus CSV: the Trajectories block's markers as position-only tracks (units from the
/// units row, Z up; empty cells are gaps); other blocks are skipped with a note.
Capture parse_vicon_csv(std::string_view text, std::string_view source,
                        const LoadOptions& options = {});
/// Acclaim ASF (skeleton) and AMC (motion) text: one track per bone at the bone's start (the
/// joint it turns about), oriented by the bone's rotation from the rest pose, like a BVH
/// joint; lengths are inches times the ASF's :units length (converted to metres); Y up. The
/// rest pose becomes capture.skeleton() (offsets only, no channels). Throws LoadError, naming
/// `asf_source` for errors in the skeleton ("<source> (skeleton)" when empty).
Capture parse_asf_amc(std::string_view asf_text, std::string_view amc_text,
                      std::string_view source, const LoadOptions& options = {},
                      std::string_view asf_source = {});
/// Xsens MVNX: one track per segment (quaternion w x y z and position in m per frame of type
/// "normal", times from the "time" attribute in ms; Z up). Errors carry the byte offset.
Capture parse_mvnx(std::string_view text, std::string_view source, const LoadOptions& options = {});
/// OpenSim TRC: markers as position-only tracks (Units converted to metres, Y up; empty cells
/// are gaps; a NumFrames or NumMarkers that disagrees with the data is tolerated with a note).
Capture parse_trc(std::string_view text, std::string_view source, const LoadOptions& options = {});

/// Metres per unit for a unit a user types: m, dm, cm, mm, in, ft, cmu (CMU BVH units, 1/0.45
/// inch), or a positive number of metres; nullopt for anything else.
std::optional<double> parse_length_unit(std::string_view text);

/// The format's name, e.g. "bvh", "motive-csv".
const char* to_string(Format format);

} // namespace odemocap

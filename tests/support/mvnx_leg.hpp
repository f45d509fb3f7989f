#pragma once
// A small MVNX file with a hierarchy, in the layout of MVN's XML export: three segments (pelvis,
// right thigh, right shank) with their connecting points (<pos_b>, segment frame, m) and
// <joints> naming parent/point and child/point; two frames in which the leg swings forward
// about the hip by `swing` radians. Used by the MVNX loader's tests and the character's.

#include <cmath>
#include <string>

namespace odemocap::test {

/// Positions and orientations written out for a hip at (0, -0.08, 1), thigh 0.42 m, the leg
/// turned about the world y axis by `swing` rad in the second frame.
inline std::string mvnx_leg(const std::string& joints_xml = "") {
  const double s = 0.4; // swing (rad) of the second frame
  const double c2 = std::cos(s / 2), s2 = std::sin(s / 2);
  const double kx = -0.42 * std::sin(s), kz = 1 - 0.42 * std::cos(s); // the knee in frame 2
  const auto q = [&](bool swung) {
    return swung ? std::to_string(c2) + " 0 " + std::to_string(s2) + " 0" : std::string("1 0 0 0");
  };
  const std::string joints =
      joints_xml.empty()
          ? "<joints>\n"
            "<joint label=\"jRightHip\"><connector1>Pelvis/jRightHip</connector1>"
            "<connector2>RightUpperLeg/jRightHip</connector2></joint>\n"
            "<joint label=\"jRightKnee\"><connector1>RightUpperLeg/jRightKnee</connector1>"
            "<connector2>RightLowerLeg/jRightKnee</connector2></joint>\n"
            "</joints>\n"
          : joints_xml;
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<mvnx version=\"4\">\n"
         "<subject label=\"P01\" frameRate=\"60\" segmentCount=\"3\">\n<segments>\n"
         "<segment label=\"Pelvis\" id=\"1\"><points>"
         "<point label=\"pHipOrigin\"><pos_b>0 0 0</pos_b></point>"
         "<point label=\"jRightHip\"><pos_b>0 -0.08 0</pos_b></point></points></segment>\n"
         "<segment label=\"RightUpperLeg\" id=\"2\"><points>"
         "<point label=\"jRightHip\"><pos_b>0 0 0</pos_b></point>"
         "<point label=\"jRightKnee\"><pos_b>0 0 -0.42</pos_b></point></points></segment>\n"
         "<segment label=\"RightLowerLeg\" id=\"3\"><points>"
         "<point label=\"jRightKnee\"><pos_b>0 0 0</pos_b></point></points></segment>\n"
         "</segments>\n" +
         joints +
         "<frames segmentCount=\"3\">\n"
         "<frame time=\"0\" type=\"normal\"><orientation>1 0 0 0 1 0 0 0 1 0 0 0</orientation>"
         "<position>0 0 1 0 -0.08 1 0 -0.08 0.58</position></frame>\n"
         "<frame time=\"17\" type=\"normal\"><orientation>1 0 0 0 " +
         q(true) + " " + q(true) + "</orientation><position>0 0 1 0 -0.08 1 " + std::to_string(kx) +
         " -0.08 " + std::to_string(kz) +
         "</position></frame>\n"
         "</frames>\n</subject>\n</mvnx>\n";
}

} // namespace odemocap::test

#pragma once
// A 5 x 7 pixel font for the viewer's status line: upper-case letters, digits and a few
// signs, one string of 35 cells ('#' lit) per glyph. Nothing else is needed to print a line.

namespace odemocap::replay {

/// The glyph of `c` (upper-cased), or nullptr for a character the font lacks (drawn blank).
const char* glyph(char c);

} // namespace odemocap::replay

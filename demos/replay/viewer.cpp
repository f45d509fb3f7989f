#include "viewer.hpp"

#include "font.hpp"

#include <GL/glu.h>
#include <GLFW/glfw3.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace odemocap::replay {
namespace {

constexpr double k_pi = 3.14159265358979323846;
constexpr double k_frame_time = 1.0 / 60.0; // simulated seconds per frame at speed 1
constexpr double k_compare_spacing = 3.0;   // m between the scenes of --compare

struct Camera {
  double yaw = -0.6;   // rad about z
  double pitch = 0.35; // rad above the horizon
  double distance = 5.2;
};

/// Everything the window's callbacks change.
struct ViewState {
  Camera camera;
  bool paused = false;
  bool step_once = false;
  bool restart = false;
  bool next_mode = false;
  double speed = 1.0;
  bool dragging = false;
  double last_x = 0.0;
  double last_y = 0.0;
};

/// Where each prop was first drawn: a prop 2 cm or more from there has been struck (or pushed)
/// and is drawn in `k_struck`, so that what was hit and what was missed can be told apart.
using FirstSeen = std::map<dGeomID, Vec3>;
const GLfloat k_struck[3] = {1.0f, 1.0f, 0.0f};

bool moved(FirstSeen& first_seen, dGeomID geom) {
  const Vec3 now = vec3_from_ode(dGeomGetPosition(geom));
  const auto [it, added] = first_seen.emplace(geom, now);
  return !added && norm(now - it->second) >= 0.02;
}

void color_of(Role role) {
  switch (role) {
  case Role::Captured: glColor3f(0.95f, 0.6f, 0.25f); return;
  case Role::Prop: glColor3f(0.3f, 0.5f, 0.9f); return;
  case Role::Stack: glColor3f(0.55f, 0.35f, 0.8f); return;
  case Role::Chain: glColor3f(0.3f, 0.75f, 0.4f); return;
  case Role::Pedestal: glColor3f(0.72f, 0.72f, 0.7f); return;
  case Role::Tray: glColor3f(0.6f, 0.6f, 0.6f); return;
  case Role::Rider: glColor3f(0.85f, 0.2f, 0.2f); return;
  }
}

void box(double x, double y, double z) {
  static const int faces[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1},
                                  {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
  static const float normals[6][3] = {{-1, 0, 0}, {1, 0, 0},  {0, -1, 0},
                                      {0, 1, 0},  {0, 0, -1}, {0, 0, 1}};
  glBegin(GL_QUADS);
  for (int f = 0; f < 6; ++f) {
    glNormal3fv(normals[f]);
    for (int k = 0; k < 4; ++k) {
      const int v = faces[f][k];
      glVertex3d((v & 4 ? 0.5 : -0.5) * x, (v & 2 ? 0.5 : -0.5) * y, (v & 1 ? 0.5 : -0.5) * z);
    }
  }
  glEnd();
}

void draw_geom(GLUquadric* quadric, dGeomID geom) {
  const dReal* p = dGeomGetPosition(geom);
  const dReal* r = dGeomGetRotation(geom);
  const GLdouble m[16] = {r[0], r[4], r[8],  0, r[1], r[5], r[9], 0,
                          r[2], r[6], r[10], 0, p[0], p[1], p[2], 1};
  glPushMatrix();
  glMultMatrixd(m);
  switch (dGeomGetClass(geom)) {
  case dBoxClass: {
    dVector3 sides;
    dGeomBoxGetLengths(geom, sides);
    box(sides[0], sides[1], sides[2]);
    break;
  }
  case dSphereClass: gluSphere(quadric, dGeomSphereGetRadius(geom), 20, 14); break;
  case dCapsuleClass: {
    dReal radius;
    dReal length;
    dGeomCapsuleGetParams(geom, &radius, &length);
    glTranslated(0, 0, -0.5 * length);
    gluCylinder(quadric, radius, radius, length, 16, 1);
    gluSphere(quadric, radius, 16, 10);
    glTranslated(0, 0, length);
    gluSphere(quadric, radius, 16, 10);
    break;
  }
  default: break;
  }
  glPopMatrix();
}

void draw_ground(const Vec3& centre, double floor) {
  glDisable(GL_LIGHTING);
  glColor3f(0.82f, 0.84f, 0.86f);
  glBegin(GL_QUADS);
  const double half = 12.0;
  glVertex3d(centre.x - half, centre.y - half, floor - 0.002);
  glVertex3d(centre.x + half, centre.y - half, floor - 0.002);
  glVertex3d(centre.x + half, centre.y + half, floor - 0.002);
  glVertex3d(centre.x - half, centre.y + half, floor - 0.002);
  glEnd();
  glColor3f(0.6f, 0.62f, 0.65f);
  glBegin(GL_LINES);
  const double x0 = std::floor(centre.x) - half;
  const double y0 = std::floor(centre.y) - half;
  for (int i = 0; i <= 48; ++i) {
    glVertex3d(x0 + 0.5 * i, y0, floor);
    glVertex3d(x0 + 0.5 * i, y0 + 2 * half, floor);
    glVertex3d(x0, y0 + 0.5 * i, floor);
    glVertex3d(x0 + 2 * half, y0 + 0.5 * i, floor);
  }
  glEnd();
  glEnable(GL_LIGHTING);
}

void draw_text(const std::string& text, int x, int y, int pixel, int width, int height) {
  glDisable(GL_LIGHTING);
  glDisable(GL_DEPTH_TEST);
  glMatrixMode(GL_PROJECTION);
  glPushMatrix();
  glLoadIdentity();
  glOrtho(0, width, height, 0, -1, 1);
  glMatrixMode(GL_MODELVIEW);
  glPushMatrix();
  glLoadIdentity();
  glColor3f(0.1f, 0.1f, 0.12f);
  glBegin(GL_QUADS);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char* g = glyph(text[i]);
    if (g == nullptr) {
      continue;
    }
    for (int row = 0; row < 7; ++row) {
      for (int col = 0; col < 5; ++col) {
        if (g[row * 5 + col] != '#') {
          continue;
        }
        const int px = x + static_cast<int>(i) * 6 * pixel + col * pixel;
        const int py = y + row * pixel;
        glVertex2i(px, py);
        glVertex2i(px + pixel, py);
        glVertex2i(px + pixel, py + pixel);
        glVertex2i(px, py + pixel);
      }
    }
  }
  glEnd();
  glPopMatrix();
  glMatrixMode(GL_PROJECTION);
  glPopMatrix();
  glMatrixMode(GL_MODELVIEW);
  glEnable(GL_DEPTH_TEST);
  glEnable(GL_LIGHTING);
}

bool save_png(const std::string& path, int width, int height) {
  std::vector<unsigned char> pixels(static_cast<std::size_t>(width) * height * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return false;
  }
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (png == nullptr || info == nullptr || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(file);
    return false;
  }
  png_init_io(png, file);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 8,
               PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int row = height - 1; row >= 0; --row) { // OpenGL's first row is the bottom one
    png_write_row(png, pixels.data() + static_cast<std::size_t>(row) * width * 3);
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return std::fclose(file) == 0;
}

ViewState& state_of(GLFWwindow* window) {
  return *static_cast<ViewState*>(glfwGetWindowUserPointer(window));
}

void on_key(GLFWwindow* window, int key, int, int action, int) {
  if (action != GLFW_PRESS && action != GLFW_REPEAT) {
    return;
  }
  ViewState& s = state_of(window);
  switch (key) {
  case GLFW_KEY_ESCAPE:
  case GLFW_KEY_Q: glfwSetWindowShouldClose(window, 1); break;
  case GLFW_KEY_SPACE: s.paused = !s.paused; break;
  case GLFW_KEY_N:
    s.paused = true;
    s.step_once = true;
    break;
  case GLFW_KEY_M: s.next_mode = true; break;
  case GLFW_KEY_R: s.restart = true; break;
  case GLFW_KEY_EQUAL:
  case GLFW_KEY_KP_ADD: s.speed = std::fmin(8.0, s.speed * 2); break;
  case GLFW_KEY_MINUS:
  case GLFW_KEY_KP_SUBTRACT: s.speed = std::fmax(1.0 / 16, s.speed / 2); break;
  default: break;
  }
}

void on_button(GLFWwindow* window, int button, int action, int) {
  ViewState& s = state_of(window);
  if (button == GLFW_MOUSE_BUTTON_LEFT) {
    s.dragging = action == GLFW_PRESS;
    glfwGetCursorPos(window, &s.last_x, &s.last_y);
  }
}

void on_cursor(GLFWwindow* window, double x, double y) {
  ViewState& s = state_of(window);
  if (s.dragging) {
    s.camera.yaw -= 0.01 * (x - s.last_x);
    s.camera.pitch = std::clamp(s.camera.pitch + 0.01 * (y - s.last_y), -0.2, 1.5);
  }
  s.last_x = x;
  s.last_y = y;
}

void on_scroll(GLFWwindow* window, double, double dy) {
  Camera& c = state_of(window).camera;
  c.distance = std::clamp(c.distance * std::pow(0.9, dy), 1.0, 40.0);
}

std::vector<std::unique_ptr<Scene>> make_scenes(const Capture& capture, const SceneOptions& options,
                                                bool compare, bool strike) {
  std::vector<std::unique_ptr<Scene>> scenes;
  if (strike) {
    for (const bool guard : {false, true}) {
      scenes.push_back(std::make_unique<StrikeScene>(StrikeOptions{guard, options.rate}));
    }
    return scenes;
  }
  const std::vector<Drive> drives =
      compare ? std::vector<Drive>{Drive::Geodesic, Drive::Linear, Drive::Teleport, Drive::Soft}
              : std::vector<Drive>{options.drive};
  for (Drive drive : drives) {
    SceneOptions o = options;
    o.drive = drive;
    scenes.push_back(std::make_unique<ReplayScene>(capture, o));
  }
  return scenes;
}

void render(const std::vector<std::unique_ptr<Scene>>& scenes, GLUquadric* quadric,
            const Camera& camera, int width, int height, const std::vector<std::string>& status,
            FirstSeen& first_seen) {
  glViewport(0, 0, width, height);
  glClearColor(0.93f, 0.95f, 0.98f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glMatrixMode(GL_PROJECTION);
  glLoadIdentity();
  gluPerspective(45.0, static_cast<double>(width) / std::max(1, height), 0.05, 200.0);
  glMatrixMode(GL_MODELVIEW);
  glLoadIdentity();
  Vec3 target = scenes.front()->focus();
  target.x += 0.5 * k_compare_spacing * static_cast<double>(scenes.size() - 1);
  target.z = scenes.front()->floor_height() + 0.8;
  const double extra = scenes.size() > 1 ? 1.5 : 1.0;
  const double d = camera.distance * extra;
  gluLookAt(target.x + d * std::cos(camera.pitch) * std::cos(camera.yaw),
            target.y + d * std::cos(camera.pitch) * std::sin(camera.yaw),
            target.z + d * std::sin(camera.pitch), target.x, target.y, target.z, 0, 0, 1);
  const GLfloat light[4] = {0.4f, 0.3f, 1.0f, 0.0f};
  glLightfv(GL_LIGHT0, GL_POSITION, light);
  draw_ground(target, scenes.front()->floor_height());
  for (std::size_t i = 0; i < scenes.size(); ++i) {
    glPushMatrix();
    glTranslated(k_compare_spacing * static_cast<double>(i), 0, 0);
    int stacked = 0;
    for (const Shape& shape : scenes[i]->shapes()) {
      color_of(shape.role);
      if (shape.role == Role::Stack && stacked++ % 2 == 1) {
        glColor3f(0.78f, 0.62f, 0.95f); // every other box lighter: a stack, not one pillar
      }
      if ((shape.role == Role::Prop || shape.role == Role::Stack) &&
          moved(first_seen, shape.geom)) {
        glColor3fv(k_struck);
      }
      draw_geom(quadric, shape.geom);
    }
    glPopMatrix();
  }
  const int pixel = std::max(2, height / 360);
  for (std::size_t i = 0; i < status.size(); ++i) {
    draw_text(status[i], 12, 12 + static_cast<int>(i) * 10 * pixel, pixel, width, height);
  }
}

} // namespace

int run_viewer(const Capture& capture, const SceneOptions& options, const ViewerOptions& view) {
  if (glfwInit() == GLFW_FALSE) {
    std::cerr << "odemocap-replay: cannot open a window (no display?); use --headless\n";
    return 2;
  }
  glfwWindowHint(GLFW_SAMPLES, 4);
  if (!view.screenshot.empty()) {
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  }
  GLFWwindow* window =
      glfwCreateWindow(view.width, view.height, "odemocap-replay", nullptr, nullptr);
  if (window == nullptr) {
    std::cerr << "odemocap-replay: cannot create an OpenGL window; use --headless\n";
    glfwTerminate();
    return 2;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);
  ViewState state;
  if (view.compare || view.strike) { // side by side along x: look at them from the front
    state.camera.yaw = -0.5 * k_pi - 0.25;
    state.camera.pitch = 0.45;
  }
  if (view.strike) { // 4 cm balls: close enough that each is a disc, struck or not
    state.camera.distance = 2.8;
    state.camera.pitch = 0.3;
  }
  glfwSetWindowUserPointer(window, &state);
  glfwSetKeyCallback(window, on_key);
  glfwSetMouseButtonCallback(window, on_button);
  glfwSetCursorPosCallback(window, on_cursor);
  glfwSetScrollCallback(window, on_scroll);
  glEnable(GL_DEPTH_TEST);
  glEnable(GL_LIGHTING);
  glEnable(GL_LIGHT0);
  glEnable(GL_COLOR_MATERIAL);
  glEnable(GL_NORMALIZE);
  glShadeModel(GL_SMOOTH);
  GLUquadric* quadric = gluNewQuadric();

  SceneOptions current = options;
  auto scenes = make_scenes(capture, current, view.compare, view.strike);
  int frame = 0;
  int status = 0;
  FirstSeen first_seen;
  // The rate the simulation really keeps (simulated over wall-clock seconds, over the last
  // half second): software GL can hold a fifth of the speed asked for.
  auto clock_mark = std::chrono::steady_clock::now();
  double sim_mark = 0.0;
  double real_speed = -1.0;
  while (glfwWindowShouldClose(window) == 0) {
    if (state.restart || state.next_mode) {
      if (state.next_mode && !view.compare && !view.strike) {
        current.drive = current.drive == Drive::Geodesic   ? Drive::Linear
                        : current.drive == Drive::Linear   ? Drive::Teleport
                        : current.drive == Drive::Teleport ? Drive::Soft
                                                           : Drive::Geodesic;
        for (auto& scene : scenes) {
          // Kinematic drives switch mid-run, as a user would; soft needs a new scene.
          state.restart = state.restart || !scene->switch_drive(current.drive);
        }
      }
      if (state.restart) {
        scenes = make_scenes(capture, current, view.compare, view.strike);
        first_seen.clear();
        sim_mark = 0.0;
        clock_mark = std::chrono::steady_clock::now();
      }
      state.restart = state.next_mode = false;
    }
    const bool screenshot = !view.screenshot.empty();
    if (!state.paused || state.step_once || screenshot) {
      const double seconds = screenshot ? k_frame_time : k_frame_time * state.speed;
      for (auto& scene : scenes) {
        const auto steps = std::max(1L, std::lround(seconds / scene->step_size()));
        for (long i = 0; i < steps; ++i) {
          scene->step();
        }
      }
      state.step_once = false;
    }
    int width = 0;
    int height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    const auto now = std::chrono::steady_clock::now();
    const double wall = std::chrono::duration<double>(now - clock_mark).count();
    if (wall >= 0.5) {
      real_speed = state.paused ? -1.0 : (scenes.front()->time() - sim_mark) / wall;
      sim_mark = scenes.front()->time();
      clock_mark = now;
    }
    char real[40] = "";
    if (real_speed >= 0.0 && real_speed < 0.95 * state.speed) {
      std::snprintf(real, sizeof real, " (RUNNING AT %.2fX)", real_speed);
    }
    char line[240];
    std::snprintf(line, sizeof line, "T %.2f S   MODE %s   SPEED %gX%s%s", scenes.front()->time(),
                  view.strike    ? "GUARD OFF | GUARD ON, LEFT TO RIGHT"
                  : view.compare ? "GEODESIC | LINEAR | TELEPORT | SOFT, LEFT TO RIGHT"
                                 : drive_name(current.drive),
                  state.speed, real, state.paused ? "   PAUSED" : "");
    render(scenes, quadric, state.camera, width, height,
           {line, "SPACE PAUSE   N STEP   M MODE   R RESTART   +/- SPEED   DRAG ORBIT   "
                  "SCROLL ZOOM   ESC QUIT",
            "YELLOW: PROPS STRUCK OR PUSHED"},
           first_seen);
    ++frame;
    if (screenshot && frame >= view.frames) {
      if (!save_png(view.screenshot, width, height)) {
        std::cerr << "odemocap-replay: cannot write " << view.screenshot << "\n";
        status = 1;
      }
      break;
    }
    glfwSwapBuffers(window);
    glfwPollEvents();
  }
  gluDeleteQuadric(quadric);
  scenes.clear();
  glfwDestroyWindow(window);
  glfwTerminate();
  return status;
}

} // namespace odemocap::replay

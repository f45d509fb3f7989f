/* Drives a kinematic ODE body along the Hips track of a capture through odemocap's C API, and a
 * second one along a circle computed by a C callback (a pose source: the same exact driving for
 * poses that come from code, a blend or a live stream), and prints where they are once a
 * second. Usage: odemocap-c-driver [capture file] */
#include <odemocap/odemocap.h>

#include <math.h>
#include <stdio.h>

/* A circle of radius *(dReal*)user_data (m) at 1 m height, once every 2 pi seconds, facing
 * along its path. */
static int orbit(dReal t, dReal pose[7], void* user_data) {
  const dReal radius = *(const dReal*)user_data;
  pose[0] = radius * cos(t);
  pose[1] = radius * sin(t);
  pose[2] = 1.0;
  pose[3] = cos(0.5 * t); /* a turn of t about z */
  pose[4] = 0.0;
  pose[5] = 0.0;
  pose[6] = sin(0.5 * t);
  return 1;
}

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "data/cmu/131_01.bvh";
  const dReal h = 1.0 / 240.0;
  dInitODE2(0);
  dWorldID world = dWorldCreate();
  int status = 1;

  /* In metres whatever the file (CMU BVH units are inferred from the skeleton's size); the
   * capture is Y-up and ODE worlds here are Z-up. */
  odmCaptureID capture = odmCaptureLoadMetres(path, 1);
  odmDriverID driver = odmDriverCreate(world);
  if (capture == NULL || driver == NULL) {
    fprintf(stderr, "odemocap-c-driver: %s\n", odmLastError());
    goto done;
  }
  int track = odmCaptureFindTrack(capture, "Hips");
  if (track < 0) {
    track = 0; /* not a CMU skeleton: drive the first track */
  }
  dBodyID body = dBodyCreate(world);
  if (odmDriverBind(driver, body, capture, track, NULL) < 0) {
    fprintf(stderr, "odemocap-c-driver: %s\n", odmLastError());
    goto done;
  }
  dReal radius = 2.0;
  dBodyID orbiter = dBodyCreate(world);
  const int circle = odmDriverBindCallback(driver, orbiter, &orbit, &radius, NULL);
  if (circle < 0) {
    fprintf(stderr, "odemocap-c-driver: %s\n", odmLastError());
    goto done;
  }
  const dReal duration = odmCaptureGetTrackDuration(capture, track);
  printf("driving a body along '%s' of %s for %.2f s\n", odmCaptureGetTrackName(capture, track),
         path, duration);
  for (int step = 0; step * h < duration; ++step) {
    if (odmDriverPrestep(driver, h) != 0) {
      fprintf(stderr, "odemocap-c-driver: %s\n", odmLastError());
      goto done;
    }
    dWorldStep(world, h);
    if ((step + 1) % 240 == 0) {
      const dReal* p = dBodyGetPosition(body);
      const dReal* o = dBodyGetPosition(orbiter);
      printf("t = %5.2f s  position (%6.3f, %6.3f, %6.3f) m  orbiter (%6.3f, %6.3f) m\n",
             odmDriverGetTime(driver), p[0], p[1], p[2], o[0], o[1]);
    }
  }
  printf("orbiter gaps: %d\n", odmDriverGetGapCount(driver, circle));
  printf("teleports: %d\n", odmDriverGetTeleportCount(driver, 0));
  status = 0;
done:
  odmDriverDestroy(driver);
  odmCaptureDestroy(capture);
  dWorldDestroy(world);
  dCloseODE();
  return status;
}

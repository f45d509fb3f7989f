/* odemocap C API: capture-driven kinematic bodies for ODE, for C programs.
 *
 * Handles are opaque and owned by the caller: every Create/Load has its Destroy. Functions
 * that can fail return NULL or -1 and leave a message in odmLastError(); no C++ exception
 * ever crosses this API. Units: metres, seconds, radians; quaternions w, x, y, z like ODE. */
#ifndef ODEMOCAP_H
#define ODEMOCAP_H

#include <ode/ode.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct odmCapture* odmCaptureID; /* a loaded capture (tracks of poses) */
typedef struct odmDriver* odmDriverID;   /* drives bodies of one world along tracks */

/* Drive modes (see odmDriverSetMode). */
enum { odmDriveGeodesic = 0, odmDriveLinearApprox = 1, odmDriveTeleport = 2 };
/* What happens after a track's last sample. */
enum { odmEndHold = 0, odmEndLoop = 1, odmEndRelease = 2 };

/* How a body follows a track; fill with odmBindOptionsSetDefault, then change fields. */
typedef struct odmBindOptions {
  dReal offset_position[3];   /* body frame in the track frame: position (m) */
  dReal offset_quaternion[4]; /* and orientation (w, x, y, z) */
  dReal time_offset;          /* track time (s) at driver time 0 */
  dReal playback_rate;        /* track seconds per simulated second, > 0 */
  int at_end;                 /* odmEndHold, odmEndLoop or odmEndRelease */
  int cubic;                  /* 0: linear interpolation, 1: C1 cubic */
  dReal max_linear_speed;     /* m/s; faster steps teleport (a data discontinuity) */
  dReal max_angular_speed;    /* rad/s */
} odmBindOptions;

/* Message of the last failed call on this thread ("" if none has failed): a call that succeeds
 * does not clear it, so it can be read after several calls. */
const char* odmLastError(void);

/* Loads a capture file (BVH, ASF/AMC, MVNX, C3D, Motive CSV, Qualisys TSV, Vicon CSV, TRC,
 * rigid-body CSV; see load.hpp).
 * length_scale multiplies positions after the file's declared unit is converted to metres
 * (files that declare none, BVH and generic CSV, keep their numbers); z_up != 0 turns the
 * capture's up axis into +Z. NULL on error. */
odmCaptureID odmCaptureLoad(const char* path, dReal length_scale, int z_up);
/* Loads a capture file in metres whatever it declares: a file without a unit gets one
 * inferred (BVH: the skeleton's size; CSV: its coordinates). z_up as above. NULL on error. */
odmCaptureID odmCaptureLoadMetres(const char* path, int z_up);
void odmCaptureDestroy(odmCaptureID capture);
int odmCaptureGetTrackCount(odmCaptureID capture);
/* Name of track `index`, valid while the capture lives; NULL for a bad index. */
const char* odmCaptureGetTrackName(odmCaptureID capture, int index);
/* Index of the track called `name`, or -1. */
int odmCaptureFindTrack(odmCaptureID capture, const char* name);
/* Duration of track `index` in seconds, or -1. */
dReal odmCaptureGetTrackDuration(odmCaptureID capture, int index);

/* A driver for `world`; NULL on error. Destroying it leaves the bodies alone. */
odmDriverID odmDriverCreate(dWorldID world);
void odmDriverDestroy(odmDriverID driver);
void odmBindOptionsSetDefault(odmBindOptions* options);
/* Binds `body` to a copy of track `track` of `capture` (options may be NULL for defaults).
 * The body becomes kinematic. Returns the binding's index, or -1. */
int odmDriverBind(odmDriverID driver, dBodyID body, odmCaptureID capture, int track,
                  const odmBindOptions* options);
/* A pose source written in C: fills pose[7] with the body's pose at time t (s): position
 * x, y, z (m, world frame) and orientation w, x, y, z (unit, body to world), and returns 1; or
 * returns 0 when it has no pose then. Called from odmDriverPrestep, once per step. */
typedef int (*odmPoseCallback)(dReal t, dReal pose[7], void* user_data);
/* Binds `body` to poses from `callback` (user_data is passed back to it), with the same
 * exact velocities as a track. Options as for odmDriverBind on the callback's clock (cubic is
 * ignored; the callback has no end, so at_end never applies). A step without a pose, or with
 * a non-finite one or a non-unit quaternion, holds the body still and is counted
 * (odmDriverGetGapCount). Returns the binding's index, or -1. */
int odmDriverBindCallback(odmDriverID driver, dBodyID body, odmPoseCallback callback,
                          void* user_data, const odmBindOptions* options);
/* Steps of binding `binding` whose source had no valid pose, or -1. */
int odmDriverGetGapCount(odmDriverID driver, int binding);
/* One of odmDriveGeodesic (default), odmDriveLinearApprox, odmDriveTeleport; 0 or -1. */
int odmDriverSetMode(odmDriverID driver, int mode);
/* How the driver treats dynamic bodies jointed to driven ones (NeighbourSettings): exact
 * rotation (1, the default: finite rotation mode for them) or not (0), and the ERP it gives
 * the joints that alone hold such a body ([0, 1]; 0 leaves them alone; default 0.8); the
 * other settings are kept. 0, or -1 for an ERP outside [0, 1] or NaN. */
int odmDriverSetNeighbours(odmDriverID driver, int exact_rotation, dReal joint_erp);
/* Whether a loop's seam carries the dynamic bodies resting on the looping body (1, the
 * default) or leaves them where the loop ended (0); NeighbourSettings::carry_resting. 0, or -1. */
int odmDriverSetCarryResting(odmDriverID driver, int carry);
/* Call before every dWorldStep/dWorldQuickStep of h seconds; 0 or -1. */
int odmDriverPrestep(odmDriverID driver, dReal h);
/* Simulated time the driver has advanced (s). */
dReal odmDriverGetTime(odmDriverID driver);
/* Steps of binding `binding` that exceeded the speed limits and teleported, or -1. */
int odmDriverGetTeleportCount(odmDriverID driver, int binding);
/* Loop seams binding `binding` crossed (odmEndLoop: the body carried by the jump from the
 * track's last pose to its first, its velocity kept), or -1. */
int odmDriverGetSeamCount(odmDriverID driver, int binding);

#ifdef __cplusplus
}
#endif

#endif /* ODEMOCAP_H */

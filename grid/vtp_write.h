/* vtp_write.h: a triangle mesh as a VTK XML PolyData file (.vtp), so that
 * ParaView shows it as a time series beside the fluid's .vtu frames.
 *
 * The file is ASCII XML: the time as field data TimeValue (Float64), the
 * vertex normals as point data Normals (the active normals, Float32), the
 * points (Float32, m) and the triangles as Polys (Int32 connectivity,
 * 0-based, counter-clockwise seen from outside, and offsets 3, 6, ...).
 * Floats have 9 significant digits and the time 17, so they read back
 * exactly. docs/file_formats.md describes it for users. */
#ifndef FL_VTP_WRITE_H
#define FL_VTP_WRITE_H

#include "fl_common.h"
#include "trimesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes m at simulated time t (s) to path as .vtp (above), whole or not
 * at all (through "<path>.tmp", as fl_obj_write). FL_OK; FL_ERR_INPUT when
 * path or m is NULL, t is not finite or a triangle names a vertex that m
 * does not have; FL_ERR_IO with "<path>...: ..." when it cannot be
 * written. */
int fl_vtp_write(const char *path, const fl_trimesh *m, double t, fl_error *err);

#ifdef __cplusplus
}
#endif

#endif

/* io.h: particle output, one file per saved frame.
 *
 *  - binary frames (frames/NNNN.bin): positions only, 12 bytes a particle,
 *    little-endian on every host, read back by fl_frame_read_bin;
 *  - legacy VTK (frames/NNNN.vtk): ASCII POLYDATA with positions, one vertex
 *    cell per particle and the velocity, density and pressure of each
 *    particle, for ParaView.
 * docs/file_formats.md describes both formats for users' own tools.
 *
 * Binary frame layout (version 1). Every number is little-endian; the
 * header is 32 bytes, so the records start 8-byte aligned:
 *
 *   offset  size  type      field
 *        0     8  char[8]   magic "FLFRAME1" (no terminating zero)
 *        8     4  uint32    version = 1
 *       12     4  uint32    particle count n
 *       16     8  float64   simulated time, s (IEEE 754 binary64)
 *       24     4  uint32    bytes per particle = 12
 *       28     4  uint32    reserved = 0 (written 0, ignored when read)
 *       32  12 n  records   n times { float32 x, y, z } in m (IEEE 754 binary32)
 *
 * A file is exactly 32 + 12 n bytes long. */
#ifndef FL_IO_H
#define FL_IO_H

#include "particles.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_FRAME_MAGIC "FLFRAME1"
#define FL_FRAME_VERSION 1u
#define FL_FRAME_HEADER_BYTES 32
#define FL_FRAME_RECORD_BYTES 12

/* Writes the live particles' positions of p and the simulated time (s) to
 * path as a binary frame (layout above), replacing any file there.
 * Returns FL_OK, or FL_ERR_IO with "<path>: ..." in err when the file cannot
 * be opened or written; a partially written file is then removed. */
int fl_frame_write_bin(const char *path, const fl_particles *p, double time, fl_error *err);

/* Reads a binary frame. On success *out holds the frame's particles: count
 * and x, y, z from the file, predicted positions equal to the positions,
 * velocities, density and pressure zero; its previous contents are
 * replaced (out must be zero-initialized or a store from earlier use; free
 * it with fl_particles_free). *time (s) is set when time is not NULL.
 * Fails with FL_ERR_IO when the file cannot be opened or read, FL_ERR_INPUT
 * when it is not a version 1 frame (magic, version, record size, length),
 * FL_ERR_MEMORY when the particles do not fit in memory; on failure *out
 * and *time are left as they were. */
int fl_frame_read_bin(const char *path, fl_particles *out, double *time, fl_error *err);

/* Writes p as an ASCII legacy VTK file (DataFile Version 3.0) that ParaView
 * opens: DATASET POLYDATA with the simulated time as field data "TIME",
 * POINTS (m), one VERTICES cell per particle, and POINT_DATA: velocity
 * (VECTORS, m/s), density (SCALARS, the active array, kg/m^3) and pressure
 * (Pa, a point field array, since VTK readers keep only the first SCALARS
 * section by default). Values are written with 9 significant digits, so
 * floats survive the round trip; NaN and +-Inf, which VTK's ASCII readers
 * cannot parse, are written as +-FLT_MAX (NaN as +FLT_MAX).
 * Errors as for fl_frame_write_bin. */
int fl_frame_write_vtk(const char *path, const fl_particles *p, double time, fl_error *err);

#ifdef __cplusplus
}
#endif

#endif

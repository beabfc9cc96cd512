/* io.h: particle output, one file per saved frame.
 *
 *  - binary frames (frames/NNNN.bin): positions only, 12 bytes a particle,
 *    little-endian on every host, read back by fl_frame_read_bin;
 *  - legacy VTK (frames/NNNN.vtk): ASCII POLYDATA with positions, one vertex
 *    cell per particle and the velocity, density and pressure of each
 *    particle, for ParaView;
 *  - VTK XML (frames/NNNN.vtu): the same content as the legacy VTK file in
 *    binary, exact to the bit and about 49 bytes a particle, read back by
 *    fl_frame_read_vtu; with a ParaView collection (frames.pvd, written by
 *    fl_pvd_write) that lists the frames and their times as one series.
 * docs/file_formats.md describes the formats for users' own tools.
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
 * A file is exactly 32 + 12 n bytes long.
 *
 * VTK XML frame layout (.vtu). An XML header, then the arrays' values as
 * raw binary blocks after a '_' in <AppendedData encoding="raw">:
 *
 *   <?xml version="1.0"?>
 *   <VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian"
 *            header_type="UInt64">
 *     <UnstructuredGrid>
 *       <FieldData>   TimeValue     Float64 x 1, one tuple: simulated time, s
 *       <Piece NumberOfPoints="n" NumberOfCells="n">
 *         <PointData Scalars="density" Vectors="velocity">
 *                     velocity      Float32 x 3, m/s
 *                     density       Float32, kg/m^3
 *                     pressure      Float32, Pa
 *         <Points>    Points        Float32 x 3, positions, m
 *         <Cells>     connectivity  Int64: 0, 1, ..., n - 1
 *                     offsets       Int64: 1, 2, ..., n
 *                     types         UInt8: 1 (VTK_VERTEX) n times
 *     <AppendedData encoding="raw">
 *      _[block][block]...
 *
 * Each DataArray tag gives its block's offset, counted from the byte after
 * the '_'. A block is a uint64 byte count, then the values, every number
 * little-endian. The blocks come in the order Points (so the first count
 * is 12 n), velocity, density, pressure, connectivity, offsets, types,
 * TimeValue, without padding; "\n  </AppendedData>\n</VTKFile>\n" follows the
 * last. A file is header + 72 + 49 n + 30 bytes long. */
#ifndef FL_IO_H
#define FL_IO_H

#include <stdio.h>

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

/* Writes p and the simulated time (s) to path as a binary VTK XML
 * UnstructuredGrid (layout above) that ParaView and VTK's
 * vtkXMLUnstructuredGridReader open: positions (m), one vertex cell per
 * particle, velocity (m/s, the active vectors), density (kg/m^3, the active
 * scalars) and pressure (Pa) per point, and the time as field data
 * TimeValue. Values keep their exact bits, NaN and +-Inf included.
 * Errors as for fl_frame_write_bin. */
int fl_frame_write_vtu(const char *path, const fl_particles *p, double time, fl_error *err);

/* Reads a frame written by fl_frame_write_vtu (not VTK XML in general).
 * On success *out holds the frame's particles: positions, predicted
 * positions equal to them, velocities, density and pressure; its previous
 * contents are replaced, as with fl_frame_read_bin. *time (s) is set when
 * time is not NULL. Fails with FL_ERR_IO when the file cannot be opened or
 * read, FL_ERR_INPUT, naming the file and what is wrong, when it is not
 * such a frame: a VTKFile other than a little-endian UnstructuredGrid with
 * UInt64 block headers, NumberOfCells other than NumberOfPoints, an array
 * missing or of another type or number of components, a block whose byte
 * count does not fit in the file or does not match NumberOfPoints, or a
 * file that does not end with the closing tags right after the last block
 * (a truncated file). Cells are checked for their declared type and size,
 * not for their values. Nothing is allocated before the byte counts are
 * checked against the file's length, so a corrupt count cannot cause a
 * large allocation. FL_ERR_MEMORY when the particles do not fit in memory.
 * On failure *out and *time are left as they were. */
int fl_frame_read_vtu(const char *path, fl_particles *out, double *time, fl_error *err);

/* Writes a ParaView collection file (.pvd) listing n data sets in the given
 * order: files[i] (a path relative to the folder of path, as ParaView
 * resolves it) at time times[i] (s, written with 17 significant digits, so
 * exactly). File names are written with &, <, >, " and ' as XML entities;
 * a name with a control character, an empty name or a non-finite time
 * fails with FL_ERR_INPUT. n may be 0 (an empty collection).
 * The file is written whole to "<path>.tmp" and then renamed to path, so
 * that path always holds a complete collection, the previous one when the
 * write fails or the process is killed. Returns FL_OK, or FL_ERR_IO with
 * "<path>...: ..." in err when the file cannot be written or renamed; the
 * .tmp file is then removed. */
int fl_pvd_write(const char *path, const char *const *files, const double *times, int n,
                 fl_error *err);

/* Writes the file at path whole or not at all: write(f, data) fills
 * "<path>.tmp" (non-zero: a write failed), which then replaces path. On
 * any failure the temporary is removed, path is left as it was, and
 * FL_ERR_IO says why ("<file>: ..."); FL_ERR_MEMORY without memory for
 * the name. */
int fl_write_whole(const char *path, int (*write)(FILE *f, const void *data), const void *data, fl_error *err);

/* Reads the text file at path (a pipe too) into *text, NUL-terminated,
 * malloc'ed. Bad input (FL_ERR_INPUT, one line naming path and what was
 * expected, `what`: "a scene file", say): a file that cannot be opened or
 * read, a folder, more than max_bytes, a NUL byte; FL_ERR_MEMORY without
 * memory. */
int fl_read_text(const char *path, long max_bytes, const char *what, char **text, fl_error *err);

#ifdef __cplusplus
}
#endif

#endif

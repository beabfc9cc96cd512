/* obj_write.h: a triangle mesh as a Wavefront OBJ file.
 *
 * The file is text: comment lines (#) saying what wrote it and the counts,
 * then one "v x y z" line per vertex (m), one "vn nx ny nz" line per
 * vertex (its unit normal, pointing outside), and one "f a//a b//b c//c"
 * line per triangle, whose 1-based indices name both the vertex and its
 * normal, counter-clockwise seen from outside. Numbers have 9 significant
 * digits, so the floats read back exactly. docs/methods/surface.md
 * describes it for users. */
#ifndef FL_OBJ_WRITE_H
#define FL_OBJ_WRITE_H

#include "fl_common.h"
#include "trimesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes m to path as OBJ (above), its first comment line "fluidlab " and
 * what (what the mesh is), replacing any file there. The file is
 * written whole to "<path>.tmp" and renamed to path, so that path never
 * holds a partial mesh: when the write fails (a full disk shows at the
 * last flush, which is checked) the .tmp file is removed and whatever was
 * at path stays. Returns FL_OK; FL_ERR_INPUT when path, m or what is NULL, or a
 * triangle names a vertex that m does not have; FL_ERR_IO with
 * "<path>...: ..." in err when the file cannot be written or renamed. */
int fl_obj_write(const char *path, const fl_trimesh *m, const char *what, fl_error *err);

/* what of the fluid's surface, which `--save obj` and `fluidlab surface`
 * write byte for byte alike */
#define FL_OBJ_SURFACE "surface mesh (marching cubes)"

#ifdef __cplusplus
}
#endif

#endif

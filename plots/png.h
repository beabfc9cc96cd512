/* png.h: an RGB image (plots/raster.h) as a PNG file: 8-bit truecolour,
 * no interlace, each row filtered with the Paeth predictor, the whole
 * deflated by zlib. */
#ifndef FL_PNG_H
#define FL_PNG_H

#include "raster.h"

/* Writes im to path whole or not at all (fl_write_whole): FL_ERR_IO with
 * the file's name and the cause, FL_ERR_MEMORY without memory. */
int fl_png_write(const char *path, const fl_image *im, fl_error *err);

/* The PNG file's bytes for im, malloc'ed, their count in *len; NULL
 * without memory. (fl_png_write writes these; the tests read them.) */
unsigned char *fl_png_encode(const fl_image *im, size_t *len);

#endif

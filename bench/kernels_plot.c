/* kernels_plot.c: `fluidlab kernels`: the SPH kernels of particles/kernels.h
 * side by side (Müller, Charypar & Gross 2003; Monaghan 1992), their value
 * W, slope dW/dr and Laplacian against r/h, as kernels.csv and a picture
 * of three panels (plots/kernels.gp). docs/pictures.md.
 *
 * W and the slopes come from kernels.h: fl_poly6, fl_spiky, fl_cubic, and
 * dW/dr = g(r) r from fl_spiky_grad_factor and fl_cubic_grad_factor. What
 * kernels.h does not hold is computed here from the same formulas, with
 * the constants read back from kernels.h where it has them:
 *  - poly6, W = K (h^2 - r^2)^3 with K = fl_poly6(0) / h^6:
 *      dW/dr = -6 K r (h^2 - r^2)^2,
 *      lap W = W'' + (dim - 1) W' / r = K (h^2 - r^2) (24 r^2 - 6 dim (h^2 - r^2));
 *  - spiky, W = k (h - r)^3: dW/dr at r = 0 is the limit -3 k h^2 (the
 *    factor of kernels.h is 0 there, where a pair has no direction); its
 *    Laplacian, 6 k (h - r) - 3 (dim - 1) k (h - r)^2 / r, has no value at
 *    r = 0 and is not used by any solver: not listed;
 *  - viscosity (Müller's eq. 22), W = C (-q^3 / 2 + q^2 + 1 / (2 q) - 1),
 *    q = r / h, infinite at r = 0 (no value there), with
 *      C = 15 / (2 pi h^3) in 3D (Müller's), and in 2D C = 10 / (3 pi h^2):
 *      the integral over the plane, 2 pi h^2 int_0^1 f(q) q dq
 *      = 2 pi h^2 (-1/10 + 1/4 + 1/2 - 1/2) = 3 pi h^2 / 10, is 1 / C;
 *    dW/dr = C (-3 q^2 / 2 + 2 q - 1 / (2 q^2)) / h; its Laplacian is
 *    fl_visc_laplacian, the kernel the solvers use: in 3D exactly the
 *    Laplacian of this W, 45 / (pi h^6) (h - r), in 2D the kernel of the
 *    same (h - r) shape that kernels.h normalises on its own (the 2D
 *    Laplacian of this W is not of that shape);
 *  - cubic spline, W = s {6 (q^3 - q^2) + 1, q <= 1/2; 2 (1 - q)^3, q <= 1}
 *    with s = fl_cubic(0): lap W = W'' + (dim - 1) W' / r from the two
 *    pieces (W'' jumps at q = 1/2). */
#include "kernels_plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "io.h"
#include "kernels.h"
#include "pictures.h"
#include "plot.h"

static const char *kernels_usage =
    "usage: fluidlab kernels [--dims 2|3] [--h H] [--out DIR]\n"
    "\n"
    "The SPH kernels of particles/kernels.h side by side: poly6 (density), spiky\n"
    "(pressure gradient), viscosity (its Laplacian: the viscosity force) and the\n"
    "cubic spline, each normalised for the dimensions asked for, against r/h:\n"
    "  DIR/kernels.csv        1001 rows, r/h from 0 to 1: for each kernel W (1/m^dims),\n"
    "                         dW/dr (1/m^(dims+1)) and, where it is defined, the\n"
    "                         Laplacian (1/m^(dims+2)); an empty field where a value\n"
    "                         has none (the viscosity kernel's W and dW/dr at r = 0)\n"
    "  DIR/kernels.png, .svg  three panels: W, dW/dr, Laplacian (needs gnuplot)\n"
    "options:\n"
    "  --dims 2|3   the dimensions the kernels are normalised in (default 3)\n"
    "  --h H        the support radius, m, 1e-4 to 100 (default 1: the columns\n"
    "               are then the kernels' shapes in units of h)\n"
    "  --out DIR    the output folder (default out/kernels)\n"
    "docs/pictures.md shows the picture; docs/methods/sph.md, section 2, derives\n"
    "the constants.\n";

/* Rows of kernels.csv: r/h = 0, 1/1000, ..., 1. */
#define KERNEL_ROWS 1001

typedef struct kernel_table {
    int dims;
    double h;
} kernel_table;

/* One row of the table at r (m): W, dW/dr and the Laplacian of each kernel
 * in the column order of kernels.csv; NAN where a value has none. */
static void kernel_row(int dims, double h, double r, double v[11])
{
    const float hf = (float)h, rf = (float)r;
    const double q = r / h, d = dims, inside = r < h;
    const double K = fl_poly6(0.0f, hf, dims) / pow(h, 6.0), a = inside ? h * h - r * r : 0.0;
    v[0] = fl_poly6(rf * rf, hf, dims);
    v[1] = -6.0 * K * r * a * a;
    v[2] = K * a * (24.0 * r * r - 6.0 * d * a) * inside;
    const double k = fl_spiky(0.0f, hf, dims) / (h * h * h);
    v[3] = fl_spiky(rf, hf, dims);
    v[4] = r > 0.0 ? fl_spiky_grad_factor(rf, hf, dims) * r : -3.0 * k * h * h;
    const double C = dims == 2 ? 10.0 / (3.0 * FL_PI * h * h) : 15.0 / (2.0 * FL_PI * h * h * h);
    v[5] = r > 0.0 ? (inside ? C * (-0.5 * q * q * q + q * q + 0.5 / q - 1.0) : 0.0) : NAN;
    v[6] = r > 0.0 ? (inside ? C * (-1.5 * q * q + 2.0 * q - 0.5 / (q * q)) / h : 0.0) : NAN;
    v[7] = fl_visc_laplacian(rf, hf, dims);
    const double s = fl_cubic(0.0f, hf, dims);
    v[8] = fl_cubic(rf, hf, dims);
    v[9] = fl_cubic_grad_factor(rf, hf, dims) * r;
    double w2, w1_r; /* W'' and W' / r of the piece q lies on */
    if (q <= 0.5)
        w2 = s * (36.0 * q - 12.0) / (h * h), w1_r = s * (18.0 * q - 12.0) / (h * h);
    else
        w2 = 12.0 * s * (1.0 - q) / (h * h), w1_r = -6.0 * s * (1.0 - q) * (1.0 - q) / (q * h * h);
    v[10] = inside ? w2 + (d - 1.0) * w1_r : 0.0;
}

static int write_table(FILE *out, const void *data)
{
    const kernel_table *t = data;
    fprintf(out, "r_over_h,poly6_W,poly6_dWdr,poly6_lap,spiky_W,spiky_dWdr,visc_W,visc_dWdr,visc_lap,cubic_W,"
                 "cubic_dWdr,cubic_lap\n");
    for (int n = 0; n < KERNEL_ROWS; n++) {
        const double x = (double)n / (KERNEL_ROWS - 1);
        double v[11];
        kernel_row(t->dims, t->h, x * t->h, v);
        fprintf(out, "%.4f", x);
        for (int c = 0; c < 11; c++)
            if (isnan(v[c]))
                fputc(',', out);
            else
                fprintf(out, ",%.9g", v[c]);
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}

/* The panels' ranges: W from 0 to above the highest finite kernel (the
 * viscosity kernel's W, infinite at 0, runs off the top), dW/dr from below
 * the steepest finite slope (the viscosity kernel's runs off the bottom). */
static void panel_ranges(int dims, double h, char *w_range, char *d_range, size_t len)
{
    double wmax = 0.0, dmin = 0.0;
    for (int n = 0; n < KERNEL_ROWS; n++) {
        double v[11];
        kernel_row(dims, h, h * n / (KERNEL_ROWS - 1), v);
        wmax = fmax(wmax, fmax(v[0], fmax(v[3], v[8])));
        dmin = fmin(dmin, fmin(v[1], fmin(v[4], v[9])));
    }
    snprintf(w_range, len, "0 %.9e", 1.15 * wmax);
    snprintf(d_range, len, "%.9e %.9e", 1.15 * dmin, -0.25 * dmin);
}

int fl_kernels_main(int argc, char **argv)
{
    int dims = 3;
    double h = 1.0;
    const char *out = "out/kernels";
    fl_seen_options seen = {.count = 0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(kernels_usage, stdout);
            return 0;
        }
        if (strcmp(a, "--dims") && strcmp(a, "--h") && strcmp(a, "--out")) {
            fprintf(stderr, "fluidlab: kernels: %s: unexpected argument (see fluidlab kernels --help)\n", a);
            return 1;
        }
        if (!v) {
            fprintf(stderr, "fluidlab: kernels %s: expected a value\n", a);
            return 1;
        }
        if (fl_option_repeated(&seen, a)) {
            fprintf(stderr, "fluidlab: kernels %s: given twice, expected it once\n", a);
            return 1;
        }
        i++;
        if (!strcmp(a, "--dims") && strcmp(v, "2") && strcmp(v, "3")) {
            fprintf(stderr, "fluidlab: kernels --dims: expected 2 or 3, got '%s'\n", v);
            return 1;
        }
        /* the kernels are evaluated in single precision, as the solvers do:
         * poly6's 3D constant 315 / (64 pi h^9) overflows a float below
         * h = 5e-5 m */
        if (!strcmp(a, "--h") && (!fl_parse_number(v, &h) || !(h >= 1e-4 && h <= 100.0))) {
            fprintf(stderr, "fluidlab: kernels --h: expected a number of metres from 1e-4 to 100, got '%s'\n", v);
            return 1;
        }
        if (!strcmp(a, "--out") && (!v[0] || strlen(v) > FL_MAX_PATH)) {
            fprintf(stderr, "fluidlab: kernels --out: expected a folder name of 1 to %d characters\n", FL_MAX_PATH);
            return 1;
        }
        dims = !strcmp(a, "--dims") ? atoi(v) : dims;
        out = !strcmp(a, "--out") ? v : out;
    }
    if (!fl_plot_available()) {
        fprintf(stderr, "fluidlab: kernels: gnuplot not found (install it: apt-get install gnuplot-nox)\n");
        return 1;
    }
    fl_error err;
    char csv[FL_MAX_PATH + 40], pic[FL_MAX_PATH + 40];
    const kernel_table table = {dims, h};
    snprintf(csv, sizeof csv, "%s/kernels.csv", out);
    if (fl_make_dirs(out, &err) || fl_write_whole(csv, write_table, &table, &err)) {
        fprintf(stderr, "fluidlab: %s\n", err.msg);
        return 2;
    }
    char w_range[80], d_range[80], v_data[FL_MAX_PATH + 60], v_out[FL_MAX_PATH + 60], v_fmt[20], v_title[200],
        v_w[100], v_d[100];
    panel_ranges(dims, h, w_range, d_range, sizeof w_range);
    snprintf(v_data, sizeof v_data, "data=%s", csv);
    snprintf(v_title, sizeof v_title, "title=The SPH kernels of particles/kernels.h, %dD, h = %g m", dims, h);
    snprintf(v_w, sizeof v_w, "wrange=%s", w_range);
    snprintf(v_d, sizeof v_d, "drange=%s", d_range);
    static const char *const formats[2] = {"png", "svg"};
    for (int f = 0; f < 2; f++) {
        snprintf(pic, sizeof pic, "%s/kernels.%s", out, formats[f]);
        snprintf(v_out, sizeof v_out, "out=%s.tmp", pic);
        snprintf(v_fmt, sizeof v_fmt, "fmt=%s", formats[f]);
        const char *const vars[] = {v_data, v_out, v_fmt, v_title, v_w, v_d, NULL};
        if (fl_pictures_draw(FL_PICTURES_SCRIPT("kernels.gp"), pic, vars, &err)) {
            fprintf(stderr, "fluidlab: %s\n", err.msg);
            return 2;
        }
    }
    fprintf(stderr, "fluidlab kernels: kernels.csv, kernels.png and kernels.svg in %s/ (%dD, h = %g m)\n", out, dims,
            h);
    return 0;
}

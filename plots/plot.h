/* plot.h: the C side of plots/: renders a gnuplot script from plots/ over a
 * run folder's CSV files. gnuplot is run as a child process with its
 * arguments passed directly (no shell). */
#ifndef FL_PLOT_H
#define FL_PLOT_H

/* 1 when a gnuplot executable is on PATH. */
int fl_plot_available(void);

/* Runs `gnuplot -e "dir='DIR'" -e "fmt='FMT'" SCRIPT`, its messages into
 * DIR/gnuplot.log (removed when it succeeds). Returns 0 on success;
 * otherwise non-zero with one line in msg (len bytes): the script's own
 * diagnostic when it printed one, else where the log is. DIR must not
 * contain a single quote. */
int fl_plot_render(const char *script, const char *dir, const char *fmt, char *msg, int len);

/* Runs `gnuplot -e "NAME='VALUE'"... SCRIPT` for each "NAME=VALUE" of
 * vars (NULL-terminated), its messages into LOG (removed when it
 * succeeds). Returns 0 on success; otherwise non-zero with one line in
 * msg, as fl_plot_render. No VALUE may contain a single quote. */
int fl_plot_run(const char *script, const char *const *vars, const char *log, char *msg, int len);

/* 1 when path is a whole picture: a regular file that ends as its format
 * ends (by its extension, the one before a trailing .tmp: a PNG's IEND
 * chunk, an SVG's closing tag, a GIF's trailer); else 0 with one line in
 * msg. gnuplot exits 0 when it
 * could not write its output (a full disk), so a caller checks the
 * pictures it claims. */
int fl_plot_written(const char *path, char *msg, int len);

/* fl_plot_render of script over dir as PNG and then SVG, and both
 * pictures, DIR/NAME.png and .svg, checked whole (fl_plot_written): 0; 1
 * when gnuplot failed, 2 when a picture is not whole, with one line in
 * msg either way. */
int fl_plot_render_pair(const char *script, const char *dir, const char *name, char *msg, int len);

#endif

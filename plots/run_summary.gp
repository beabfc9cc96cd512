# run_summary.gp: the one-page summary of a run, drawn from its stats.csv.
#
# Three panels against simulated time: the compression error (average and
# maximum, in percent), the largest particle speed, and the dam-break front
# (largest x of a fluid particle). stats.csv is read by column NAME, so its
# column order and any extra columns do not matter; it needs the columns
# time, density_err_avg, density_err_max, max_speed and front_x.
#
# Usage (gnuplot 5.4):
#   gnuplot -e "dir='out'" plots/run_summary.gp                 # out/summary.png
#   gnuplot -e "dir='out'" -e "fmt='svg'" plots/run_summary.gp  # out/summary.svg
# Variables:
#   dir        the run folder holding stats.csv (default ".")
#   fmt        'png' (pngcairo, 900x900) or 'svg' (default 'png')
#   err_scale  factor from stats.csv's density errors to percent (default
#              100: the errors are fractions, e_i = rho_i / rho0 - 1)
# A missing file or column stops gnuplot with an error and a non-zero exit
# before any picture is written.

if (!exists("dir")) dir = "."
if (!exists("fmt")) fmt = "png"
if (!exists("err_scale")) err_scale = 100.0

stats_file = dir . "/stats.csv"
out_file = dir . "/summary." . fmt

set datafile separator comma
set datafile columnheaders

if (fmt ne "png" && fmt ne "svg") {
    print sprintf("run_summary.gp: fmt='%s': expected 'png' or 'svg'", fmt)
    exit status 1
}

# Check the input before the output file exists. stats only warns when the
# file is missing or a column has no valid number, and then leaves its
# S_records undefined: turn that into one clear error and a non-zero exit.
stats stats_file using 1 name "S" nooutput
if (!exists("S_records")) {
    print sprintf("run_summary.gp: %s: cannot read it, or it has no data rows", stats_file)
    exit status 1
}
undefine S_*
do for [col in "time density_err_avg density_err_max max_speed front_x"] {
    stats stats_file using (column(col)) name "S" nooutput
    if (!exists("S_records")) {
        print sprintf("run_summary.gp: %s: column \"%s\" is missing or holds no finite number", stats_file, col)
        exit status 1
    }
    undefine S_*
}
stats stats_file using (column("time")) name "T" nooutput

if (fmt eq "png") {
    set terminal pngcairo size 900,900 enhanced font "sans,10" linewidth 1.5
} else {
    set terminal svg size 900,900 enhanced font "sans,10" linewidth 1.5 background "white"
}
set output out_file

set grid
set key top left Left reverse opaque
if (T_max > T_min) set xrange [T_min:T_max]
set lmargin 12
set rmargin 4

set multiplot layout 3,1 title sprintf("Run summary: %s (%d steps, t = %.3g s)", dir, T_records, T_max) noenhanced

set title "Compression error"
set ylabel "error (%)"
set yrange [*<0:*]   # 0 always shown; the max error may be negative
plot stats_file using (column("time")):(column("density_err_avg") * err_scale) \
         with lines lc rgb "#1f77b4" title "average", \
     '' using (column("time")):(column("density_err_max") * err_scale) \
         with lines lc rgb "#d62728" title "maximum"

set title "Largest particle speed"
set ylabel "speed (m/s)"
set yrange [0:*]
plot stats_file using (column("time")):(column("max_speed")) \
         with lines lc rgb "#2ca02c" title "max speed"

set title "Front position"
set ylabel "front x (m)"
set xlabel "time (s)"
set yrange [*:*]
plot stats_file using (column("time")):(column("front_x")) \
         with lines lc rgb "#9467bd" title "front x"

unset multiplot
set output

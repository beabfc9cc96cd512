# validate.gp: the figure of a case of `fluidlab validate` (docs/validation.md).
#
# A run's error against its particle spacing d, log-log, one line per
# solver, from DIR/NAME.csv: one block per solver (header
# "spacing_m,<solver>,..."; d in m, then the error's magnitude), blocks
# separated by two blank lines. The slope of a line is the order of
# convergence; d grows to the right, so a line falling to the left is an
# error that falls with refinement. The x tics are the spacings run.
#
# Usage (gnuplot 5.4), DIR the validate folder (default out/validate):
#   gnuplot -e "dir='DIR'" -e "fmt='png'" -e "name='hydrostatic'" \
#           -e "title='...'" -e "ylabel='...'" plots/validate.gp   # DIR/hydrostatic.png
# A missing or empty input stops gnuplot with one line and a non-zero exit.

if (!exists("dir")) dir = "out/validate"
if (!exists("fmt")) fmt = "png"
if (!exists("name")) name = "hydrostatic"
if (!exists("title")) title = name
if (!exists("ylabel")) ylabel = "error"
width = 900
height = 650
load system(sprintf("dirname '%s'", ARG0)) . "/setup_figure.gp"

set title title
set logscale xy
set xlabel "particle spacing d, m"
set ylabel ylabel
set format xy "%g"
set key outside right top
# the data's range with a margin, not whole decades; the x tics at the spacings run
set autoscale fix
set offsets graph 0.08, graph 0.08, graph 0.1, graph 0.1
# errors within less than a decade: tics a round step apart, as on a linear axis
stats data_file using 2 nooutput name "E"
if (E_min > 0 && E_max < 10 * E_min) {
    step = 10.0**floor(log10(E_max > E_min ? (E_max - E_min) / 2.0 : E_min))
    k0 = floor(0.8 * E_min / step)
    do for [k = (k0 > 1 ? k0 : 1):ceil(1.2 * E_max / step)] { set ytics add (k * step) }
}
plot for [i=0:S_blocks-1] data_file index i using 1:2:xtic(sprintf("%g", column(1))) with linespoints pt 7 lw 1.5 \
     title columnheader(2)
unset output
